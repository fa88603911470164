// The layers below the core are part of its API: a caller of GCDCatCore (the CLI, the tests)
// sees their errors and the S3 vocabulary without importing them one by one.
@_exported import GCDCatS3
@_exported import GCDCatSystem
