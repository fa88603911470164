import FoundationEssentials
import GCDCatSystem
import Synchronization

/// The real ``ObjectStore``: S3 and S3-compatible stores (Ceph RGW, MinIO) over HTTP, signed
/// with SigV4, blocking, callable from any thread.
///
/// ## Errors
/// As ``ObjectStore`` says: a ``GCDCatError`` with the `s3://` location as its path, the S3
/// operation as its syscall, and `Code (HTTP status): S3's message` as its message; HTTP 412
/// is `.outputExists`. Neither the secret nor a signature ever appears in a message.
///
/// ## Implementation details
/// - Every request is retried per ``RetryPolicy``, re-sending the body from memory.
/// - The body is not copied here: it reaches the transport as `Data` over the caller's buffer,
///   valid only during the call (``HTTPTransport``'s contract: a transport that keeps the body
///   copies it). ``CurlTransport`` reads it in place and returns only when libcurl is done
///   with it; a copy here would cost a fresh 16 MiB (page faults and zeroing) per part.
/// - A 200 answer to UploadPartCopy or CompleteMultipartUpload can still be an `<Error>`;
///   it is treated as the error it carries.
/// - Ceph answers CompleteMultipartUpload with an empty ETag; nothing here depends on it.
public final class S3Client: ObjectStore {
    public let configuration: S3Configuration
    package let transport: any HTTPTransport
    package let retry: RetryPolicy
    package let signer: SigV4Signer
    /// Each bucket's region and host as redirects taught them, for the rest of the run.
    package let routes = BucketRoutes()
    /// The buckets whose virtual-hosted requests were seen to reach them (``requireVirtualHostServed(_:)``).
    package let virtualHostsServed = Mutex<Set<String>>([])
    package let sent = Atomic<UInt64>(0)
    package let received = Atomic<UInt64>(0)

    public convenience init(configuration: S3Configuration) {
        self.init(configuration: configuration, transport: CurlTransport(tls: configuration.tls), retry: .standard)
    }

    /// With a chosen transport and retry policy: tests script both.
    public init(configuration: S3Configuration, transport: any HTTPTransport, retry: RetryPolicy) {
        self.configuration = configuration
        self.transport = transport
        self.retry = retry
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region)
    }

    /// Body bytes sent (every attempt counts), for "bytes through the client" in reports.
    public var bytesSent: UInt64 { sent.load(ordering: .relaxed) }
    /// Body bytes received.
    public var bytesReceived: UInt64 { received.load(ordering: .relaxed) }
    /// Both directions together.
    public var bytesTransferred: UInt64 { bytesSent + bytesReceived }

    // MARK: ObjectStore

    public func head(_ object: ObjectLocation) throws -> ObjectInfo? {
        let response = try perform(
            S3Request(operation: "HeadObject", method: "HEAD", location: object), allowing: [404])
        if response.status == 404 {
            try requireVirtualHostServed(object)
            return nil
        }
        guard let size = response.headers["content-length"].flatMap({ UInt64($0) }) else {
            throw GCDCatError(
                .io, path: object.description, syscall: "HeadObject", message: "the answer has no Content-Length")
        }
        return ObjectInfo(
            location: object, size: size, etag: response.headers["etag"].map(Self.unquoted),
            crc32: response.headers["x-amz-checksum-crc32"].flatMap(Self.crc32),
            metadata: Self.userMetadata(response.headers))
    }

    /// The caller's bytes as `Data` without a copy, valid while the caller's buffer is (the
    /// whole of a request: retries re-send from it before the call returns).
    package static func borrowed(_ body: UnsafeRawBufferPointer) -> Data {
        guard let base = body.baseAddress, !body.isEmpty else { return Data() }
        return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: body.count, deallocator: .none)
    }

    /// `x-amz-meta-NAME` headers, keyed by NAME (header names arrive lowercased).
    package static func userMetadata(_ headers: [String: String]) -> [String: String] {
        let prefix = "x-amz-meta-"
        var metadata: [String: String] = [:]
        for (name, value) in headers where name.hasPrefix(prefix) && name.count > prefix.count {
            metadata[String(name.dropFirst(prefix.count))] = value
        }
        return metadata
    }

    /// The request headers that set `metadata` (every one is signed with the request).
    package static func metadataHeaders(_ metadata: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: metadata.map { ("x-amz-meta-" + $0.key.lowercased(), $0.value) })
    }

    public func bucketExists(_ bucket: String) throws -> Bool {
        let response = try perform(
            S3Request(
                operation: "HeadBucket", method: "HEAD", location: ObjectLocation(bucket: bucket, key: ""),
                bucketLevel: true),
            allowing: [404])
        return response.status != 404
    }

    public func list(bucket: String, prefix: String) throws -> [ObjectInfo] {
        try list(bucket: bucket, prefix: prefix, pageSize: nil)
    }

    /// ListObjectsV2 with `max-keys` = `pageSize` per page (tests page with a small one).
    public func list(bucket: String, prefix: String, pageSize: Int?) throws -> [ObjectInfo] {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix)]
        if let pageSize { query.append(("max-keys", String(pageSize))) }
        let request = S3Request(
            operation: "ListObjectsV2", method: "GET", location: ObjectLocation(bucket: bucket, key: prefix),
            bucketLevel: true, query: query,
            checkBody: { Self.isXML("ListBucketResult", $0) ? nil : "the answer is not a ListBucketResult" })
        var objects: [ObjectInfo] = []
        try forEachPage(of: request, paging: .objects) { _, body in
            for entry in S3XML.blocks("Contents", in: body) {
                guard let key = S3XML.value("Key", in: entry) else { continue }
                objects.append(
                    ObjectInfo(
                        location: ObjectLocation(bucket: bucket, key: key),
                        size: S3XML.value("Size", in: entry).flatMap { UInt64($0) } ?? 0,
                        etag: S3XML.value("ETag", in: entry).map(Self.unquoted)))
            }
        }
        return objects
    }

    public func get(
        _ object: ObjectLocation, range: Range<UInt64>, ifMatch: String?, into buffer: UnsafeMutableRawBufferPointer
    ) throws {
        guard buffer.count == range.count else {
            throw GCDCatError(
                .invalidInput, path: object.description, syscall: "GetObject",
                message: "a buffer of \(buffer.count) bytes for a range of \(range.count)")
        }
        if range.isEmpty { return }
        var headers = ["range": "bytes=\(range.lowerBound)-\(range.upperBound - 1)"]
        if let ifMatch { headers["if-match"] = "\"\(ifMatch)\"" }
        let response = try Self.changedIfPreconditionFailed(ifMatch, object) {
            try perform(
                S3Request(
                    operation: "GetObject", method: "GET", location: object,
                    headers: headers,
                    checkBody: { response in
                        let wholeObject = response.status == 200 && range.lowerBound == 0
                        guard response.status == 206 || wholeObject else {
                            return "expected 206 Partial Content, got HTTP \(response.status)"
                        }
                        if let length = response.headers["content-length"], UInt64(length) != UInt64(range.count) {
                            return "Content-Length \(length) for a range of \(range.count) bytes"
                        }
                        if response.body.count != range.count {
                            return "short body: \(response.body.count) of \(range.count) bytes"
                        }
                        // The length alone would pass another range of the same size.
                        let asked = "bytes \(range.lowerBound)-\(range.upperBound - 1)/"
                        if response.status == 206, response.headers["content-range"]?.hasPrefix(asked) != true {
                            return "Content-Range '\(response.headers["content-range"] ?? "")' for the range "
                                + "\(range.lowerBound)-\(range.upperBound - 1)"
                        }
                        return nil
                    }))
        }
        response.body.withUnsafeBytes { buffer.copyMemory(from: $0) }
    }

    /// A failed `If-Match` (HTTP 412, which ``perform(_:)`` reports as `.outputExists`) means the
    /// source is no longer the version gcdcat saw: `.inputChanged`, naming it.
    private static func changedIfPreconditionFailed<T>(
        _ ifMatch: String?, _ source: ObjectLocation, _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch let error as GCDCatError where ifMatch != nil && error.code == .outputExists {
            throw GCDCatError(
                .inputChanged, path: source.description, syscall: error.syscall,
                message:
                    "is no longer the object gcdcat listed (ETag \(ifMatch!)): replaced meanwhile, or, for a key with "
                    + "'%', resolved by the server to another object; nothing was published")
        }
    }

    public func put(
        _ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String]
    ) throws {
        try put(object, body: body, ifNoneMatch: ifNoneMatch, metadata: metadata, contentType: nil)
    }

    public func put(
        _ object: ObjectLocation, body: UnsafeRawBufferPointer, ifNoneMatch: Bool, metadata: [String: String],
        contentType: String?
    ) throws {
        var headers = Self.metadataHeaders(metadata)
        if let contentType { headers["content-type"] = contentType }
        if ifNoneMatch { headers["if-none-match"] = "*" }
        if configuration.objectOptions.checksumAlgorithm == .crc32c {
            headers["x-amz-checksum-crc32c"] = CRC32C.base64(CRC32C.of(body))
        }
        // A retry's 412 is then about our own object, or every answer was lost.
        try performWrite(
            S3Request(
                operation: "PutObject", method: "PUT", location: object, headers: headers, body: Self.borrowed(body)),
            landing: LandedWrite(etag: Self.md5(body), size: UInt64(body.count), metadata: metadata),
            mayHaveLanded: { _, unheard in unheard })
    }

    /// Sends a write that a lost answer makes ambiguous: an earlier sending may have acted,
    /// so a failure may hide a write that landed. When `mayHaveLanded` says so (given the
    /// failure and whether a sending may have acted unheard: the request went more than once,
    /// or an attempt's answer was lost, even the only one's at the request's deadline), the key
    /// decides (``landing(of:_:since:)``): a write recognised as this run's counts as done; one
    /// that did not land keeps its failure; one that cannot be told says so, and how to check.
    /// Returns the answer, or nil when the write was recognised so rather than answered.
    @discardableResult
    private func performWrite(
        _ request: S3Request, landing expected: LandedWrite,
        mayHaveLanded: (GCDCatError, _ unheard: Bool) -> Bool
    ) throws(GCDCatError) -> HTTPResponse? {
        var request = request
        var unheard = false
        request.onRetry = { unheard = true }
        request.onLostAnswer = { unheard = true }
        let started = ContinuousClock.now
        var failure: GCDCatError
        do {
            return try perform(request)
        } catch {
            failure = error
        }
        guard mayHaveLanded(failure, unheard) else { throw failure }
        switch landing(
            of: request.location, expected, since: started, uploadGone: failure.message.hasPrefix("NoSuchUpload"))
        {
        case .ours: return nil
        case .notLanded: throw failure
        case .undecided(let why):
            failure.message +=
                "; its answer was lost and whether it landed cannot be told: \(why); check the key with aws s3api "
                + "head-object --bucket \(LeftBehindAdvice.shellQuoted(request.location.bucket)) --key "
                + "\(LeftBehindAdvice.shellQuoted(request.location.key)) (an object this run wrote carries "
                + "x-amz-meta-\(UploadRunMark.metadataName): \(UploadRunMark.current))"
            throw failure
        }
    }

    /// What a write makes, to recognise it by when its answer was lost (``performWrite(_:landing:mayHaveLanded:)``).
    struct LandedWrite {
        /// The object's ETag when it can be predicted (an MD5, or the multipart ETag of the
        /// parts' MD5s); nil when it cannot. Servers that encrypt with SSE-KMS or SSE-C, and
        /// some gateways, give others: then the rest decides.
        var etag: String?
        /// The object's size, when known.
        var size: UInt64?
        /// Metadata the object carries only when this write made it: at least this run's mark
        /// (``UploadRunMark``), which no other writer's object has.
        var metadata: [String: String]
        /// The upload a completion completes: while ListParts still finds it, the completion did
        /// not land. A completed object's `Last-Modified` is its upload's start on AWS, so a
        /// completion is not checked against the time it was sent; a PutObject is.
        var upload: MultipartUpload?
    }

    enum Landing: Equatable {
        case ours
        case notLanded
        /// Why it cannot be told.
        case undecided(String)
    }

    /// Whether a write whose answer was lost landed, from the key (one HEAD) and, for a
    /// completion, its upload (ListParts). The predicted ETag (and size) means ours. Otherwise
    /// the upload still listed means not landed; gone, the object is ours only when it carries
    /// this write's metadata (this run's mark, which no other writer's object has: the run
    /// writes each key once), has its size, and (a PutObject) was written after the write began
    /// (`Last-Modified` against the HEAD's `Date`, both the server's clock): another writer's
    /// object is never called ours, and is named.
    ///
    /// `uploadGone`: the write's own failure said the upload is gone (`NoSuchUpload`), so no
    /// ListParts is needed to know it.
    func landing(
        of location: ObjectLocation, _ expected: LandedWrite, since started: ContinuousClock.Instant,
        uploadGone: Bool = false
    ) -> Landing {
        let response: HTTPResponse
        do {
            response = try perform(
                S3Request(operation: "HeadObject", method: "HEAD", location: location), allowing: [404])
        } catch {
            return .undecided("the HEAD of the key failed (\(error.message))")
        }
        // No object: the write did not land (or what it made is gone already).
        guard response.status != 404 else { return .notLanded }
        let size = response.headers["content-length"].flatMap { UInt64($0) }
        let etag = response.headers["etag"].map(Self.unquoted)
        let sized = expected.size == nil || size == expected.size
        if let predicted = expected.etag, etag == predicted, sized { return .ours }
        let metadata = Self.userMetadata(response.headers)
        let marked =
            expected.metadata[UploadRunMark.metadataName] != nil
            && expected.metadata.allSatisfy { metadata[$0.key.lowercased()] == $0.value }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let written = response.headers["last-modified"].flatMap(S3Dates.httpDate)
        let now = response.headers["date"].flatMap(S3Dates.httpDate)
        // Both are whole seconds of the server's clock: 2 s of rounding.
        let recent =
            expected.upload != nil || (written.flatMap { written in now.map { written + 2 >= $0 - seconds } } ?? true)
        // While the upload is still there, the completion did not land, whatever the key holds.
        if let upload = expected.upload, !uploadGone {
            do {
                if try listParts(upload) != nil { return .notLanded }
            } catch {
                return .undecided(
                    "the ListParts of upload \(upload.uploadID) failed (\((error as? GCDCatError)?.message ?? "\(error)"))"
                )
            }
        }
        if marked && sized && recent { return .ours }
        let mark = metadata[UploadRunMark.metadataName]
        let writer =
            mark == nil
            ? "not written by gcdcat"
            : mark == UploadRunMark.current ? "written by this run" : "written by gcdcat run \(mark!)"
        return .undecided(
            "the key holds an object this write did not make (\(size.map { "\($0) bytes" } ?? "size unknown"), ETag "
                + "\(etag ?? "none"), \(writer)\(recent ? "" : ", last modified before this write began"))"
                + (expected.upload == nil ? "" : ", and the upload is gone"))
    }

    /// The size of the object `parts` make, when each part's is known.
    private static func size(of parts: [UploadedPart]) -> UInt64? {
        parts.reduce(UInt64(0) as UInt64?) { total, part in total.flatMap { sum in part.size.map { sum + $0 } } }
    }

    /// The ETag S3 gives an object stored by one PutObject (without SSE-KMS): the body's MD5.
    private static func md5(_ body: UnsafeRawBufferPointer) -> String? {
        RequestDigests.hex(RequestDigests.md5(body))
    }

    /// CreateMultipartUpload. An attempt whose answer was lost (retried, or the last one, timed
    /// out at the request's deadline) may have created an upload: the key's other uploads
    /// initiated while this call ran are then aborted (``abortOrphans(of:keeping:serverDate:since:)``),
    /// whether a later attempt succeeded or every attempt failed. When they cannot be listed, or
    /// fewer were found than answers lost (a hanging server may create one later), the error
    /// names the command that finds and aborts them.
    public func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String]) throws -> MultipartUpload {
        try createMultipartUpload(object, metadata: metadata, contentType: nil)
    }

    /// The same, with the object's Content-Type given (it replaces `--content-type`'s and the guess).
    public func createMultipartUpload(_ object: ObjectLocation, metadata: [String: String], contentType: String?)
        throws -> MultipartUpload
    {
        var request = S3Request(
            operation: "CreateMultipartUpload", method: "POST", location: object, query: [("uploads", "")],
            headers: Self.metadataHeaders(metadata))
        if let contentType { request.headers["content-type"] = contentType }
        var retried = false
        var lostAnswers = 0
        request.onRetry = { retried = true }
        request.onLostAnswer = { lostAnswers += 1 }
        let started = ContinuousClock.now
        let response: HTTPResponse
        do {
            response = try perform(request)
        } catch {
            guard retried || lostAnswers > 0 else { throw error }
            // Each attempt may have created an upload whose answer never came.
            var failure = error
            switch abortOrphans(of: object, keeping: nil, serverDate: nil, since: started) {
            case nil:
                failure.message +=
                    "; an attempt may have started an upload whose answer was lost, which keeps storage until "
                    + "aborted: aws s3api list-multipart-uploads --bucket \(LeftBehindAdvice.shellQuoted(object.bucket)) "
                    + "--prefix \(LeftBehindAdvice.shellQuoted(object.key)) lists it"
            case let aborted? where aborted < lostAnswers:
                failure.message +=
                    "; \(lostAnswers - aborted == 1 ? "an attempt" : "\(lostAnswers - aborted) attempts") whose answer "
                    + "was lost may yet start an upload on the server, which keeps storage until aborted: gcdcat uploads "
                    + "\(LeftBehindAdvice.shellQuoted(object.description)) --abort finds and aborts it"
            default: break
            }
            throw failure
        }
        guard let id = S3XML.value("UploadId", in: [UInt8](response.body)), !id.isEmpty else {
            throw GCDCatError(
                .io, path: object.description, syscall: "CreateMultipartUpload", message: "the answer has no UploadId")
        }
        if retried {
            abortOrphans(
                of: object, keeping: id, serverDate: response.headers["date"].flatMap(S3Dates.httpDate),
                since: started)
        }
        return MultipartUpload(location: object, uploadID: id)
    }

    /// Aborts the uploads of `object`'s key, other than `keeping`, that the server initiated
    /// since `started` (the seconds since then, plus 2 s of rounding, before `serverDate`, or
    /// before the listing's own `Date` when nil): those a CreateMultipartUpload left when an
    /// attempt succeeded but its answer was lost. Best effort; how many were aborted, or nil when
    /// the listing did not come or one could not be aborted. Without a server `Date` nothing is
    /// aborted (the client's clock may be off).
    ///
    /// An upload of the same key that another writer started in that same moment would be
    /// aborted too; two writers of one key at once already lose one write (docs/notes/s3.md).
    @discardableResult
    package func abortOrphans(
        of object: ObjectLocation, keeping id: String?, serverDate: Double?, since started: ContinuousClock.Instant
    ) -> Int? {
        guard
            let response = try? perform(
                S3Request(
                    operation: "ListMultipartUploads", method: "GET", location: object, bucketLevel: true,
                    query: [("uploads", ""), ("prefix", object.key)])),
            let serverDate = serverDate ?? response.headers["date"].flatMap(S3Dates.httpDate)
        else { return nil }
        let elapsed = ContinuousClock.now - started
        let window = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var cleared = true
        var aborted = 0
        for entry in S3XML.blocks("Upload", in: [UInt8](response.body)) {
            guard S3XML.value("Key", in: entry) == object.key, let other = S3XML.value("UploadId", in: entry),
                other != id, let initiated = S3XML.value("Initiated", in: entry).flatMap(S3Dates.isoDate),
                initiated >= serverDate - window - 2, initiated <= serverDate + 2
            else { continue }
            do {
                try abortMultipartUpload(MultipartUpload(location: object, uploadID: other))
                aborted += 1
            } catch {
                cleared = false
            }
        }
        return cleared ? aborted : nil
    }

    public func uploadPart(_ upload: MultipartUpload, partNumber: Int, body: UnsafeRawBufferPointer) throws
        -> UploadedPart
    {
        let crc32c = configuration.objectOptions.checksumAlgorithm == .crc32c ? CRC32C.of(body) : nil
        let response = try perform(
            S3Request(
                operation: "UploadPart", method: "PUT", location: upload.location,
                query: [("partNumber", String(partNumber)), ("uploadId", upload.uploadID)],
                headers: crc32c.map { ["x-amz-checksum-crc32c": CRC32C.base64($0)] } ?? [:],
                body: Self.borrowed(body)))
        guard let etag = response.headers["etag"] else {
            throw GCDCatError(
                .io, path: upload.location.description, syscall: "UploadPart",
                message: "the answer to part \(partNumber) has no ETag")
        }
        return UploadedPart(
            partNumber: partNumber, etag: Self.unquoted(etag), crc32c: crc32c,
            size: crc32c.map { _ in UInt64(body.count) })
    }

    public func uploadPartCopy(
        _ upload: MultipartUpload, partNumber: Int, source: ObjectLocation, range: Range<UInt64>, ifMatch: String?
    ) throws -> UploadedPart {
        guard !range.isEmpty else {
            throw GCDCatError(
                .invalidInput, path: source.description, syscall: "UploadPartCopy", message: "an empty range")
        }
        var headers = [
            "x-amz-copy-source": source.copySource,
            "x-amz-copy-source-range": "bytes=\(range.lowerBound)-\(range.upperBound - 1)",
        ]
        if let ifMatch { headers["x-amz-copy-source-if-match"] = "\"\(ifMatch)\"" }
        let response = try Self.changedIfPreconditionFailed(ifMatch, source) {
            try perform(
                S3Request(
                    operation: "UploadPartCopy", method: "PUT", location: upload.location,
                    query: [("partNumber", String(partNumber)), ("uploadId", upload.uploadID)],
                    headers: headers, errorMayComeWith200: true))
        }
        guard let etag = S3XML.value("ETag", in: [UInt8](response.body)), !etag.isEmpty else {
            throw GCDCatError(
                .io, path: upload.location.description, syscall: "UploadPartCopy",
                message: "the answer to part \(partNumber) (from \(source)) has no ETag")
        }
        // The server computes a copied part's checksum when the upload has an algorithm; one
        // that does not (Ceph RGW 16) answers none, and the object's value stays unknown.
        guard configuration.objectOptions.checksumAlgorithm == .crc32c else {
            return UploadedPart(partNumber: partNumber, etag: Self.unquoted(etag))
        }
        return UploadedPart(
            partNumber: partNumber, etag: Self.unquoted(etag),
            crc32c: S3XML.value("ChecksumCRC32C", in: [UInt8](response.body)).flatMap(CRC32C.parse(base64:)),
            size: range.upperBound - range.lowerBound)
    }

    public func completeMultipartUpload(_ upload: MultipartUpload, parts: [UploadedPart], ifNoneMatch: Bool) throws {
        let checksummed = configuration.objectOptions.checksumAlgorithm == .crc32c
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            xml += "<Part><PartNumber>\(part.partNumber)</PartNumber>"
            xml += "<ETag>\(S3XML.escape("\"\(part.etag)\""))</ETag>"
            if checksummed, let crc32c = part.crc32c {
                xml += "<ChecksumCRC32C>\(CRC32C.base64(crc32c))</ChecksumCRC32C>"
            }
            xml += "</Part>"
        }
        xml += "</CompleteMultipartUpload>"
        var headers = ["content-type": "application/xml"]
        if ifNoneMatch { headers["if-none-match"] = "*" }
        let whole = checksummed ? FullObjectChecksum.combined(parts) : nil
        if checksummed {
            headers["x-amz-checksum-type"] = "FULL_OBJECT"
            if let whole { headers["x-amz-checksum-crc32c"] = CRC32C.base64(whole) }
        }
        // A retry whose first attempt completed (its answer lost) finds the upload gone, or
        // (If-None-Match) its own object; and when every answer was lost, the server may have
        // completed it all the same. It is ours when its ETag is the one these parts make.
        let answer = try performWrite(
            S3Request(
                operation: "CompleteMultipartUpload", method: "POST", location: upload.location,
                query: [("uploadId", upload.uploadID)], headers: headers, body: Data(xml.utf8),
                errorMayComeWith200: true),
            landing: LandedWrite(
                etag: MultipartETag.of(parts), size: Self.size(of: parts),
                metadata: [UploadRunMark.metadataName: UploadRunMark.current], upload: upload),
            mayHaveLanded: { failure, unheard in
                unheard || failure.message.hasPrefix("NoSuchUpload") || failure.code == .outputExists
            })
        if answer == nil { try? abortMultipartUpload(upload) }  // gone already, unless the key held these bytes before
        if checksummed { try requireStoredChecksum(whole, of: upload.location, answer: answer) }
    }

    /// An upload that is already gone (404) counts as aborted.
    public func abortMultipartUpload(_ upload: MultipartUpload) throws {
        _ = try perform(
            S3Request(
                operation: "AbortMultipartUpload", method: "DELETE", location: upload.location,
                query: [("uploadId", upload.uploadID)]),
            allowing: [404])
    }

    public func listMultipartUploads(bucket: String, prefix: String) throws -> [MultipartUpload] {
        try listPendingUploads(bucket: bucket, prefix: prefix).uploads.map(\.upload)
    }

    /// A key that does not exist counts as deleted, as S3 itself answers.
    public func delete(_ object: ObjectLocation) throws {
        _ = try perform(S3Request(operation: "DeleteObject", method: "DELETE", location: object), allowing: [404])
    }

    // MARK: Buckets (tests and scripts)

    /// CreateBucket; a bucket this account already owns is fine.
    public func createBucket(_ bucket: String) throws {
        var body = Data()
        if configuration.endpoint == nil && configuration.region != "us-east-1" {
            body = Data(
                ("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                    + "<LocationConstraint>\(S3XML.escape(configuration.region))</LocationConstraint>"
                    + "</CreateBucketConfiguration>").utf8)
        }
        do {
            _ = try perform(
                S3Request(
                    operation: "CreateBucket", method: "PUT", location: ObjectLocation(bucket: bucket, key: ""),
                    bucketLevel: true, body: body))
        } catch {
            guard error.message.hasPrefix("BucketAlreadyOwnedByYou") else { throw error }
        }
    }

    /// PutBucketPolicy: `policy` is the policy document (JSON). Tests deny an operation with it.
    public func putBucketPolicy(_ bucket: String, policy: String) throws {
        _ = try perform(
            S3Request(
                operation: "PutBucketPolicy", method: "PUT", location: ObjectLocation(bucket: bucket, key: ""),
                bucketLevel: true, query: [("policy", "")], body: Data(policy.utf8)))
    }

    /// DeleteBucketPolicy; a bucket without one is fine.
    public func deleteBucketPolicy(_ bucket: String) throws {
        _ = try perform(
            S3Request(
                operation: "DeleteBucketPolicy", method: "DELETE", location: ObjectLocation(bucket: bucket, key: ""),
                bucketLevel: true, query: [("policy", "")]),
            allowing: [404])
    }

    // MARK: Requests

    /// Whether a 200's body is the XML document `root` names: a proxy or portal that answers
    /// 200 with a page of its own must not read as an empty listing.
    /// With virtual-hosted addressing on a custom endpoint, a server that does not serve it
    /// (Ceph RGW without `rgw_dns_name`, a gateway with no wildcard name) takes each request as
    /// naming no bucket: a listing gets its list of buckets, and a HEAD of an object that exists
    /// a 404, which read as "No such object". So a 404 is believed only once a ListObjectsV2 of
    /// the bucket (no key) was answered as one: checked once per bucket and run.
    ///
    /// ## Errors
    /// The refusal (``virtualHostRefusal(_:_:)``) when the server answered with its buckets.
    func requireVirtualHostServed(_ object: ObjectLocation) throws(GCDCatError) {
        guard configuration.endpoint != nil, configuration.hostsBuckets,
            !virtualHostsServed.withLock({ $0.contains(object.bucket) })
        else { return }
        // Its refusal (a ListAllMyBucketsResult) is thrown by perform (checkBody).
        _ = try perform(
            S3Request(
                operation: "ListObjectsV2", method: "GET", location: ObjectLocation(bucket: object.bucket, key: ""),
                bucketLevel: true, query: [("list-type", "2"), ("max-keys", "0")],
                checkBody: { Self.isXML("ListBucketResult", $0) ? nil : "the answer is not a ListBucketResult" }))
        virtualHostsServed.withLock { _ = $0.insert(object.bucket) }
    }

    /// The error for an answer that shows a virtual-hosted request was taken as naming no
    /// bucket (a ListAllMyBucketsResult), and what to do; nil for any other answer, or another
    /// addressing.
    package func virtualHostRefusal(_ bucket: String, _ response: HTTPResponse) -> String? {
        guard let endpoint = configuration.endpoint, configuration.hostsBuckets, !bucket.isEmpty,
            Self.isXML("ListAllMyBucketsResult", response)
        else { return nil }
        return "the server answered with its list of buckets, as if the request named none: it does not serve "
            + "virtual-hosted-style requests (\(bucket).\(endpoint.hostAndPort), the profile's s3 addressing_style = "
            + "virtual); set addressing_style = path (or auto) there, or make the server serve them (Ceph RGW: "
            + "rgw_dns_name = \(endpoint.host))"
    }

    package static func isXML(_ root: String, _ response: HTTPResponse) -> Bool {
        response.body.firstRange(of: Data("<\(root)".utf8)) != nil
    }

    package static func unquoted(_ etag: String) -> String {
        var value = Substring(etag)
        if value.hasPrefix("W/") { value = value.dropFirst(2) }
        if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = value.dropFirst().dropLast() }
        return String(value)
    }

    /// `x-amz-checksum-crc32` is the big-endian CRC in base64; a composite (`…-N`) is not one.
    private static func crc32(_ header: String) -> UInt32? {
        guard !header.contains("-"), let bytes = Data(base64Encoded: header), bytes.count == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
