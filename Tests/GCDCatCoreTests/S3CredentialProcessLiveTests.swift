import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Credentials from a profile's `credential_process`, used against the real RGW.
@Suite(.enabled(if: S3TestServer.isAvailable, "needs GCDCAT_S3_ENDPOINT (scripts/test.sh starts an RGW)"))
struct S3CredentialProcessLiveTests {
    @Test func keysPrintedByACredentialProcessWriteAndReadAnObject() throws {
        let folder = TemporaryDirectory()
        let keys = S3TestServer.credentials
        let program = folder.file("rgw-keys")
        writeFile(
            program,
            Array(
                """
                #!/bin/sh
                printf '{"Version": 1, "AccessKeyId": "%s", "SecretAccessKey": "%s", "Expiration": "2100-01-01T00:00:00Z"}' "$1" "$2"

                """.utf8))
        chmod(program, 0o755)
        writeFile(
            folder.file("config"),
            Array("[profile rgw]\ncredential_process = \(program) \(keys.accessKeyID) '\(keys.secretAccessKey)'\n".utf8)
        )
        let configuration = try S3Configuration.resolve(
            environment: [
                "HOME": folder.path, "AWS_CONFIG_FILE": folder.file("config"), "AWS_PROFILE": "rgw",
                "AWS_SHARED_CREDENTIALS_FILE": folder.file("none"), "AWS_EC2_METADATA_DISABLED": "true",
            ], endpointURL: S3TestServer.endpoint)
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: keys.accessKeyID, secretAccessKey: keys.secretAccessKey))
        #expect(configuration.credentialSource.source.sourceName == "credential_process for profile 'rgw'")
        let client = S3Client(configuration: configuration)
        let bucket = try S3TestServer.freshBucket(client, "credproc")
        let object = ObjectLocation(bucket: bucket, key: "from-process.bin")
        let bytes = seededBytes(10_000, seed: 24)
        try bytes.withUnsafeBytes { try client.put(object, body: $0, ifNoneMatch: false) }
        var back = [UInt8](repeating: 0, count: bytes.count)
        try back.withUnsafeMutableBytes { try client.get(object, range: 0..<10_000, into: $0) }
        #expect(back == bytes)
        try client.delete(object)
    }
}
