import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Credentials from the chain's sources, used against the real RGW.
@Suite(.enabled(if: S3TestServer.isAvailable, "needs GCDCAT_S3_ENDPOINT (scripts/test.sh starts an RGW)"))
struct S3CredentialLiveTests {
    /// The radosgw with STS on that `STS_PORT=… scripts/s3-up.sh` starts beside the main one.
    static var stsEndpoint: String? { ProcessInfo.processInfo.environment["GCDCAT_S3_STS_ENDPOINT"] }

    /// Writes `bytes` with `client` and reads them back.
    private func roundTrip(_ client: S3Client, bucket: String, _ bytes: [UInt8]) throws -> [UInt8] {
        let object = ObjectLocation(bucket: bucket, key: "through-the-chain.bin")
        try bytes.withUnsafeBytes { try client.put(object, body: $0, ifNoneMatch: false) }
        var back = [UInt8](repeating: 0, count: bytes.count)
        try back.withUnsafeMutableBytes { try client.get(object, range: 0..<UInt64(bytes.count), into: $0) }
        try client.delete(object)
        return back
    }

    @Test(
        .enabled(
            if: stsEndpoint != nil,
            "needs GCDCAT_S3_STS_ENDPOINT: a radosgw with STS on, as STS_PORT=PORT scripts/s3-up.sh starts"))
    func aRoleAssumedThroughRGWsSTSWritesAndReadsAnObject() throws {
        let folder = TemporaryDirectory()
        let keys = S3TestServer.credentials
        writeFile(
            folder.file("config"),
            Array(
                """
                [profile role]
                role_arn = arn:aws:iam:::role/GcdcatTest
                source_profile = base
                [profile base]
                aws_access_key_id = \(keys.accessKeyID)
                aws_secret_access_key = \(keys.secretAccessKey)

                """.utf8))
        let configuration = try S3Configuration.resolve(
            environment: [
                "HOME": folder.path, "AWS_CONFIG_FILE": folder.file("config"), "AWS_PROFILE": "role",
                "AWS_SHARED_CREDENTIALS_FILE": folder.file("none"), "AWS_EC2_METADATA_DISABLED": "true",
                "AWS_ENDPOINT_URL_STS": Self.stsEndpoint ?? "",
            ], endpointURL: Self.stsEndpoint)
        #expect(configuration.credentials.accessKeyID != keys.accessKeyID)
        #expect(configuration.credentials.sessionToken != nil)
        let bucket = try S3TestServer.freshBucket(try S3TestServer.client(), "sts")
        let bytes = seededBytes(10_000, seed: 25)
        #expect(try roundTrip(S3Client(configuration: configuration), bucket: bucket, bytes) == bytes)
    }

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
        let bytes = seededBytes(10_000, seed: 24)
        #expect(try roundTrip(client, bucket: bucket, bytes) == bytes)
    }
}
