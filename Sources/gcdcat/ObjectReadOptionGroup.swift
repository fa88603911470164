import ArgumentParser
import GCDCatCore

/// The object-store options of the commands that read objects to hash them (checksum and
/// verify): `--no-stored-checksums`, then every option of ``ObjectStoreOptions``, declared once
/// here in the order --help shows them.
struct ObjectReadOptionGroup: ParsableArguments {
    @Flag(help: "Read s3:// objects even where the server keeps their crc32 (x-amz-checksum-crc32).")
    var noStoredChecksums = false

    @OptionGroup var store: ObjectStoreOptions

    /// Whether a crc32 the server keeps is used unread.
    var trustsStoredChecksums: Bool { !noStoredChecksums }

    /// ``ObjectStoreOptions/check(namesObjects:)``.
    func check(namesObjects: Bool) throws {
        try store.check(namesObjects: namesObjects)
    }

    /// ``ObjectStoreOptions/makeStore()``.
    func makeStore() throws -> CountingObjectStore {
        try store.makeStore()
    }
}
