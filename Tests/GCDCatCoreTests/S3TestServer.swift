import Foundation
import GCDCatCore
import Synchronization

/// The RGW that scripts/test.sh starts: `GCDCAT_S3_ENDPOINT` plus the test key pair
/// (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, defaulting to ceph-up.sh's). Live tests are
/// `.enabled(if: S3TestServer.isAvailable)`.
enum S3TestServer {
    static var endpoint: String? {
        guard let value = ProcessInfo.processInfo.environment["GCDCAT_S3_ENDPOINT"], !value.isEmpty else { return nil }
        return value
    }

    static var isAvailable: Bool { endpoint != nil }

    static var credentials: S3Credentials {
        let environment = ProcessInfo.processInfo.environment
        return S3Credentials(
            accessKeyID: environment["AWS_ACCESS_KEY_ID"] ?? "TESTACCESSKEY",
            secretAccessKey: environment["AWS_SECRET_ACCESS_KEY"] ?? "TESTSECRETKEY0123456789")
    }

    static func configuration(credentials: S3Credentials = credentials) throws -> S3Configuration {
        S3Configuration(
            endpoint: try S3Endpoint(parsing: endpoint ?? "http://127.0.0.1:1"), region: "us-east-1",
            credentials: credentials)
    }

    static func client() throws -> S3Client { S3Client(configuration: try configuration()) }

    private static let counter = Atomic<Int>(0)

    /// A fresh bucket with a name no other test (or run) uses.
    static func freshBucket(_ client: S3Client, _ label: String) throws -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        let bucket = "t-\(label)-\(getpid())-\(number)-\(Int(Date().timeIntervalSince1970) % 100_000)"
        try client.createBucket(bucket)
        return bucket
    }
}
