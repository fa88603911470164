import Foundation
import GCDCatCore
import Testing

/// The four S3 listings gcdcat reads page alike: each sends back the markers of a truncated
/// page, and each refuses a truncated page that leads nowhere new instead of asking for it
/// again forever.
struct S3ListingPagingTests {
    /// One listing: its answer's root and entry, the markers a truncated page names, the
    /// request's fixed query, and the call that lists through a client.
    struct Listing: CustomTestStringConvertible, Sendable {
        var operation: String
        var root: String
        var entry: @Sendable (String) -> String
        var markers: [(element: String, parameter: String)]
        var query: String
        var list: @Sendable (S3Client) throws -> [String]
        var testDescription: String { operation }
    }

    static let upload = MultipartUpload(location: ObjectLocation(bucket: "bkt", key: "p/a.001"), uploadID: "u1")

    static let listings: [Listing] = [
        Listing(
            operation: "ListObjectsV2", root: "ListBucketResult",
            entry: { "<Contents><Key>\($0)</Key><Size>1</Size></Contents>" },
            markers: [("NextContinuationToken", "continuation-token")], query: "?list-type=2&prefix=p%2F",
            list: { try $0.list(bucket: "bkt", prefix: "p/").map(\.location.key) }),
        Listing(
            operation: "ListObjectVersions", root: "ListVersionsResult",
            entry: { "<Version><Key>\($0)</Key><VersionId>v</VersionId></Version>" },
            markers: [("NextKeyMarker", "key-marker"), ("NextVersionIdMarker", "version-id-marker")],
            query: "?versions=&prefix=p%2F",
            list: { try ($0.keysWithVersions(bucket: "bkt", prefix: "p/") ?? []).sorted() }),
        Listing(
            operation: "ListMultipartUploads", root: "ListMultipartUploadsResult",
            entry: { "<Upload><Key>\($0)</Key><UploadId>id-\($0)</UploadId></Upload>" },
            markers: [("NextKeyMarker", "key-marker"), ("NextUploadIdMarker", "upload-id-marker")],
            query: "?uploads&prefix=p%2F",
            list: { try $0.listPendingUploads(bucket: "bkt", prefix: "p/").uploads.map(\.upload.location.key) }),
        Listing(
            operation: "ListParts", root: "ListPartsResult",
            entry: { "<Part><PartNumber>\($0)</PartNumber><ETag>e</ETag><Size>1</Size></Part>" },
            markers: [("NextPartNumberMarker", "part-number-marker")], query: "/p/a.001?uploadId=u1",
            list: { try ($0.listParts(upload) ?? []).map { String($0.partNumber) } }),
    ]

    private func client(_ transport: ScriptedTransport) throws -> S3Client {
        let configuration = S3Configuration(
            endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "eu-west-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret"))
        let policy = RetryPolicy(maximumAttempts: 1, baseDelay: 0, maximumDelay: 0, sleep: { _ in }, jitter: { 0 })
        return S3Client(configuration: configuration, transport: transport, retry: policy)
    }

    /// A page of `listing` holding `entries`; truncated with `markers` (element text, nil: the
    /// element left out) when they are given.
    private func page(_ listing: Listing, _ entries: [String], markers: [String?]? = nil) -> ScriptedTransport.Step {
        var xml = "<\(listing.root)>" + entries.map(listing.entry).joined()
        if let markers {
            xml += "<IsTruncated>true</IsTruncated>"
            for (marker, value) in zip(listing.markers, markers) {
                if let value { xml += "<\(marker.element)>\(value)</\(marker.element)>" }
            }
        } else {
            xml += "<IsTruncated>false</IsTruncated>"
        }
        return .answer(HTTPResponse(status: 200, body: Data((xml + "</\(listing.root)>").utf8)))
    }

    /// moto answers ListParts under the root `ListPartsResponse`; botocore reads the parts, and
    /// so does gcdcat (it refused the answer, so no resume and no `uploads` worked against moto).
    @Test func listPartsUnderMotosRootIsRead() throws {
        var moto = Self.listings[3]
        moto.root = "ListPartsResponse"
        let s3 = try client(ScriptedTransport([page(moto, ["1", "2"], markers: ["2"]), page(moto, ["3"])]))
        #expect(try moto.list(s3) == ["1", "2", "3"])
    }

    @Test(arguments: listings)
    func everyListingSendsBackTheMarkersOfATruncatedPage(_ listing: Listing) throws {
        let markers = listing.markers.indices.map { "m\($0)/+" }
        let transport = ScriptedTransport([page(listing, ["1", "2"], markers: markers), page(listing, ["3"])])
        let s3 = try client(transport)
        #expect(try listing.list(s3) == ["1", "2", "3"])
        let urls = transport.requests.map(\.url)
        #expect(urls.count == 2)
        let next = listing.markers.enumerated().map { "&\($1.parameter)=m\($0)%2F%2B" }
        #expect(urls.first?.hasSuffix(listing.query) == true, "\(urls)")
        #expect(urls.last?.hasSuffix(listing.query + next.joined()) == true, "\(urls)")
    }

    /// Missing, empty and repeated markers: each refused on the page that names them, with no
    /// further request (a repeated ListObjectsV2 token was once followed again and again).
    @Test(arguments: listings, ["missing", "empty", "repeated"])
    func aTruncatedPageThatLeadsNowhereNewIsRefused(_ listing: Listing, _ fault: String) throws {
        let good = listing.markers.indices.map { "m\($0)" }
        var steps = [page(listing, ["1"], markers: good)]
        switch fault {
        case "missing": steps = [page(listing, ["1"], markers: good.map { _ in nil })]
        case "empty": steps = [page(listing, ["1"], markers: good.map { _ in "" })]
        default: steps.append(page(listing, ["2"], markers: good))
        }
        let transport = ScriptedTransport(steps + [page(listing, ["9"])])
        let s3 = try client(transport)
        let error = try #require(throws: GCDCatError.self) { try listing.list(s3) }
        #expect(transport.requests.count == steps.count)
        let location = listing.operation == "ListParts" ? "s3://bkt/p/a.001" : "s3://bkt/p/"
        let what = listing.operation == "ListParts" ? "listing of upload u1" : "listing"
        let names = listing.markers.map(\.element)
        let verb = names.count == 1 ? "is" : "are"
        #expect(
            error.description
                == "\(location): \(listing.operation): a truncated \(what) whose \(names.joined(separator: " and ")) "
                + "\(verb) missing, empty or the same as the last page's")
    }
}
