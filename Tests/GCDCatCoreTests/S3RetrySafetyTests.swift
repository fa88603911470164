import Foundation
import Testing

@testable import GCDCatCore

/// Retries of the two requests that are not idempotent, through a scripted transport: a
/// CreateMultipartUpload whose first answer was lost leaves no orphan upload, and a
/// CompleteMultipartUpload whose first answer was lost is recognised as done.
struct S3RetrySafetyTests {
    let object = ObjectLocation(bucket: "bkt", key: "out.bin")

    func client(_ transport: ScriptedTransport, attempts: Int = 3) throws -> S3Client {
        S3Client(
            configuration: S3Configuration(
                endpoint: try S3Endpoint(parsing: "http://127.0.0.1:9"), region: "us-east-1",
                credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")),
            transport: transport, retry: RetryPolicy(maximumAttempts: attempts, sleep: { _ in }))
    }

    static let lost = ScriptedTransport.Step.fail(HTTPTransportError(message: "connection lost", isRetryable: true))

    static func created(_ id: String, date: String) -> ScriptedTransport.Step {
        .answer(
            HTTPResponse(
                status: 200, headers: ["date": date],
                body: Data(
                    "<InitiateMultipartUploadResult><UploadId>\(id)</UploadId></InitiateMultipartUploadResult>".utf8)))
    }

    static func upload(_ key: String, _ id: String, _ initiated: String) -> String {
        "<Upload><Key>\(key)</Key><UploadId>\(id)</UploadId><Initiated>\(initiated)</Initiated></Upload>"
    }

    @Test func datesParse() {
        #expect(S3Dates.httpDate("Wed, 25 Nov 2026 02:51:43 GMT") == 1_795_575_103)
        #expect(S3Dates.isoDate("2026-11-25T02:51:43.123Z") == 1_795_575_103)
        #expect(S3Dates.isoDate("2026-11-25T02:51:43Z") == 1_795_575_103)
        // A credential's Expiration with an offset is the same instant (it was read as UTC: keys
        // 2 minutes from expiry seemed good for 9 hours, fresh ones expired).
        for written in [
            "2026-11-25T11:51:43+09:00", "2026-11-24T21:51:43-05:00", "2026-11-24T21:51:43-0500",
            "2026-11-25T02:51:43UTC", "2026-11-25T02:51:43", "2026-11-25T04:51:43.5+02",
        ] {
            #expect(S3Dates.isoDate(written) == 1_795_575_103, Comment(rawValue: written))
        }
        #expect(S3Dates.isoDate("2026-11-25T02:51:43+9") == nil)
        #expect(S3Dates.isoDate("2026-11-25T02:51:43 PST") == nil)
        #expect(S3Dates.httpDate("yesterday") == nil)
    }

    @Test func aRetriedCreateAbortsTheUploadItsLostAnswerLeft() throws {
        let listing =
            "<ListMultipartUploadsResult>"
            + Self.upload("out.bin", "orphan", "2026-11-25T02:51:42.500Z")
            + Self.upload("out.bin", "ours", "2026-11-25T02:51:43.100Z")
            + Self.upload("out.bin", "someone-elses", "2026-11-25T01:00:00.000Z")
            + Self.upload("out.bin.2", "other-key", "2026-11-25T02:51:43.000Z")
            + "</ListMultipartUploadsResult>"
        let transport = ScriptedTransport([
            Self.lost, Self.created("ours", date: "Wed, 25 Nov 2026 02:51:43 GMT"),
            .answer(HTTPResponse(status: 200, body: Data(listing.utf8))),
            .answer(HTTPResponse(status: 204)),
        ])
        let upload = try client(transport).createMultipartUpload(object, metadata: RecordedChecksum.metadata(7))
        #expect(upload.uploadID == "ours")
        let requests = transport.requests
        #expect(requests.map(\.method) == ["POST", "POST", "GET", "DELETE"])
        #expect(requests[2].url == "http://127.0.0.1:9/bkt?uploads&prefix=out.bin")
        #expect(requests[3].url == "http://127.0.0.1:9/bkt/out.bin?uploadId=orphan")
    }

    /// Every attempt's answer lost (F2 of the third S3 attack: five uploads were left, unsaid):
    /// the uploads those attempts started are aborted, dated by the listing's own `Date`.
    @Test func aCreateWhoseEveryAnswerWasLostAbortsWhatItStarted() throws {
        let listing =
            "<ListMultipartUploadsResult>"
            + Self.upload("out.bin", "lost-1", "2026-11-25T02:51:42.000Z")
            + Self.upload("out.bin", "lost-2", "2026-11-25T02:51:42.900Z")
            + Self.upload("out.bin", "someone-elses", "2026-11-25T01:00:00.000Z")
            + "</ListMultipartUploadsResult>"
        let transport = ScriptedTransport([
            Self.lost, Self.lost, Self.lost,
            .answer(
                HTTPResponse(status: 200, headers: ["date": "Wed, 25 Nov 2026 02:51:43 GMT"], body: Data(listing.utf8))),
            .answer(HTTPResponse(status: 204)), .answer(HTTPResponse(status: 204)),
        ])
        let error = try #require(throws: GCDCatError.self) {
            try client(transport).createMultipartUpload(object, metadata: [:])
        }
        #expect(error.syscall == "CreateMultipartUpload")
        #expect(!error.message.contains("list-multipart-uploads"), "\(error.message)")
        let requests = transport.requests
        #expect(requests.map(\.method) == ["POST", "POST", "POST", "GET", "DELETE", "DELETE"])
        #expect(requests[4].url == "http://127.0.0.1:9/bkt/out.bin?uploadId=lost-1")
        #expect(requests[5].url == "http://127.0.0.1:9/bkt/out.bin?uploadId=lost-2")
    }

    /// A create whose one attempt timed out at the request's deadline (no retry fits) was not
    /// looked after, and the upload it made stayed unnamed (outside attack on issue 24, item 5):
    /// the key's uploads are listed and the one the lost answer left is aborted.
    @Test func aCreateWhoseOnlyAttemptTimedOutAbortsTheUploadItLeft() throws {
        let listing =
            "<ListMultipartUploadsResult>" + Self.upload("out.bin", "lost-1", "2026-11-25T02:51:42.500Z")
            + "</ListMultipartUploadsResult>"
        let transport = ScriptedTransport([
            .fail(HTTPTransportError(message: "timed out", isRetryable: true)),
            .answer(
                HTTPResponse(status: 200, headers: ["date": "Wed, 25 Nov 2026 02:51:43 GMT"], body: Data(listing.utf8))),
            .answer(HTTPResponse(status: 204)),
        ])
        let error = try #require(throws: GCDCatError.self) {
            try client(transport, attempts: 1).createMultipartUpload(object, metadata: [:])
        }
        #expect(error.message == "timed out (http://127.0.0.1:9)", "\(error.message)")
        #expect(transport.requests.map(\.method) == ["POST", "GET", "DELETE"])
        #expect(transport.requests[2].url == "http://127.0.0.1:9/bkt/out.bin?uploadId=lost-1")
    }

    /// A server whose writes hang may create the upload after the listing: then the error
    /// names the command that finds and aborts it.
    @Test func aTimedOutCreateWhoseUploadIsNotListedYetNamesTheCommandThatAbortsIt() throws {
        let transport = ScriptedTransport([
            .fail(HTTPTransportError(message: "timed out", isRetryable: true)),
            .answer(
                HTTPResponse(
                    status: 200, headers: ["date": "Wed, 25 Nov 2026 02:51:43 GMT"],
                    body: Data("<ListMultipartUploadsResult></ListMultipartUploadsResult>".utf8))),
        ])
        let error = try #require(throws: GCDCatError.self) {
            try client(transport, attempts: 1).createMultipartUpload(object, metadata: [:])
        }
        #expect(
            error.message
                == "timed out (http://127.0.0.1:9); an attempt whose answer was lost may yet start an upload on the "
                + "server, which keeps storage until aborted: gcdcat uploads s3://bkt/out.bin --abort finds and "
                + "aborts it")
    }

    /// When the server cannot even be asked what was left, the error says how to look.
    @Test func aCreateThatCannotCleanUpSaysHowToListTheUploads() throws {
        let transport = ScriptedTransport([Self.lost, Self.lost, Self.lost, Self.lost, Self.lost, Self.lost])
        let error = try #require(throws: GCDCatError.self) {
            try client(transport).createMultipartUpload(object, metadata: [:])
        }
        #expect(
            error.message.hasSuffix(
                "; an attempt may have started an upload whose answer was lost, which keeps storage until aborted: "
                    + "aws s3api list-multipart-uploads --bucket bkt --prefix out.bin lists it"), "\(error.message)")
    }

    @Test func aCreateThatWasNotRetriedListsNothing() throws {
        let transport = ScriptedTransport([Self.created("ours", date: "Wed, 25 Nov 2026 02:51:43 GMT")])
        _ = try client(transport).createMultipartUpload(object, metadata: [:])
        #expect(transport.requests.count == 1)
    }

    static let parts = [
        UploadedPart(partNumber: 1, etag: "0cc175b9c0f1b6a831c399e269772661"),
        UploadedPart(partNumber: 2, etag: "92eb5ffee6ae2fec3ad71c777531578f"),
    ]

    @Test func theMultipartETagIsTheMD5OfThePartsMD5s() {
        // md5(md5("a") ‖ md5("b")) in binary, then "-2": as S3 and RGW compute it.
        #expect(MultipartETag.of(Self.parts) == "96e024ba2074fe77e8e965ba43a704be-2")
        #expect(MultipartETag.of([UploadedPart(partNumber: 1, etag: "not-md5")]) == nil)
        #expect(MultipartETag.of([]) == nil)
    }

    @Test(arguments: [false, true])
    func aRetriedCompletionThatHadSucceededIsDone(ifNoneMatch: Bool) throws {
        let etag = try #require(MultipartETag.of(Self.parts))
        let gone =
            ifNoneMatch
            ? ScriptedTransport.Step.answer(HTTPResponse(status: 412))
            : .answer(
                HTTPResponse(
                    status: 404, body: Data("<Error><Code>NoSuchUpload</Code></Error>".utf8)))
        let transport = ScriptedTransport([
            Self.lost, gone,
            .answer(HTTPResponse(status: 200, headers: ["content-length": "2", "etag": "\"\(etag)\""])),
            .answer(HTTPResponse(status: 404)),
        ])
        try client(transport).completeMultipartUpload(
            MultipartUpload(location: object, uploadID: "u"), parts: Self.parts, ifNoneMatch: ifNoneMatch)
        #expect(transport.requests.map(\.method) == ["POST", "POST", "HEAD", "DELETE"])
    }

    @Test func aCompletionWhoseUploadIsGoneAndWhoseKeyHoldsOtherBytesFails() throws {
        let transport = ScriptedTransport([
            .answer(HTTPResponse(status: 404, body: Data("<Error><Code>NoSuchUpload</Code></Error>".utf8))),
            .answer(HTTPResponse(status: 200, headers: ["content-length": "2", "etag": "\"abc-2\""])),
        ])
        let error = try #require(throws: GCDCatError.self) {
            try client(transport).completeMultipartUpload(
                MultipartUpload(location: object, uploadID: "u"), parts: Self.parts, ifNoneMatch: false)
        }
        // The upload is gone and the key holds another object: whether the completion landed
        // before it cannot be told, and the error says so and how to check.
        #expect(
            error.description
                == "s3://bkt/out.bin: CompleteMultipartUpload: NoSuchUpload (HTTP 404); its answer was lost and whether "
                + "it landed cannot be told: the key holds an object this write did not make (2 bytes, ETag abc-2, not "
                + "written by gcdcat), and the upload is gone; check the key with aws s3api head-object --bucket bkt "
                + "--key out.bin (an object this run wrote carries x-amz-meta-gcdcat-run: \(UploadRunMark.current))")
        #expect(transport.requests.map(\.method) == ["POST", "HEAD"])
    }

    /// An answer the transport got by sending the request again (its kept connection died)
    /// counts as a retry: the first sending may have created an upload and lost the answer.
    @Test func aCreateTheTransportSentTwiceLooksForAnOrphan() throws {
        let listing =
            "<ListMultipartUploadsResult>" + Self.upload("out.bin", "orphan", "2026-11-25T02:51:42.500Z")
            + Self.upload("out.bin", "ours", "2026-11-25T02:51:43.000Z") + "</ListMultipartUploadsResult>"
        let body = "<InitiateMultipartUploadResult><UploadId>ours</UploadId></InitiateMultipartUploadResult>"
        let transport = ScriptedTransport([
            .answer(
                HTTPResponse(
                    status: 200, headers: ["date": "Wed, 25 Nov 2026 02:51:43 GMT"], body: Data(body.utf8),
                    mayHaveBeenSentTwice: true)),
            .answer(HTTPResponse(status: 200, body: Data(listing.utf8))),
            .answer(HTTPResponse(status: 204)),
        ])
        #expect(try client(transport).createMultipartUpload(object, metadata: [:]).uploadID == "ours")
        #expect(transport.requests.map(\.method) == ["POST", "GET", "DELETE"])
        #expect(transport.requests[2].url == "http://127.0.0.1:9/bkt/out.bin?uploadId=orphan")
    }

    static let manifest = Data("; a manifest\nx.001 0A1B2C3D\n".utf8)

    /// A conditional PUT whose first answer was lost (third S3 attack, second round, F2): the
    /// retry's 412 is about the object the first sending stored, so HEAD decides. Its ETag is
    /// the body's MD5: the PUT succeeded. Another ETag, or a 412 with no earlier sending, is a
    /// real "already exists".
    @Test(arguments: [(true, true), (true, false), (false, true)])
    func aConditionalPutSentTwiceRecognisesItsOwnObject(repeated: Bool, sameBytes: Bool) throws {
        var digester = try Digester(.md5)
        digester.update(Self.manifest)
        let md5 = digester.finalize()
        let head = ScriptedTransport.Step.answer(
            HTTPResponse(
                status: 200,
                headers: ["content-length": String(Self.manifest.count), "etag": "\"\(sameBytes ? md5 : "0123")\""]))
        let transport = ScriptedTransport(
            (repeated ? [Self.lost] : []) + [.answer(HTTPResponse(status: 412)), head])
        let put = {
            try Self.manifest.withUnsafeBytes {
                try client(transport).put(self.object, body: $0, ifNoneMatch: true, metadata: [:])
            }
        }
        if repeated && sameBytes {
            try put()
            #expect(transport.requests.map(\.method) == ["PUT", "PUT", "HEAD"])
        } else {
            let error = try #require(throws: GCDCatError.self) { try put() }
            #expect(error.code == .outputExists)
            #expect(transport.requests.map(\.method) == (repeated ? ["PUT", "PUT", "HEAD"] : ["PUT"]))
        }
    }

    /// Every answer to CompleteMultipartUpload lost, though the server completed it (third
    /// attack on the transport, F1: exit 1 while the object was there, unnamed). HEAD decides:
    /// the parts' ETag means it is done; another object, or none, keeps the error.
    @Test(arguments: [true, false])
    func aCompletionWhoseEveryAnswerWasLostIsRecognisedByItsETag(landed: Bool) throws {
        let etag = try #require(MultipartETag.of(Self.parts))
        let head =
            landed
            ? ScriptedTransport.Step.answer(
                HTTPResponse(status: 200, headers: ["content-length": "2", "etag": "\"\(etag)\""]))
            : .answer(HTTPResponse(status: 404))
        let transport = ScriptedTransport([Self.lost, Self.lost, Self.lost, head, .answer(HTTPResponse(status: 404))])
        let complete = {
            try client(transport).completeMultipartUpload(
                MultipartUpload(location: object, uploadID: "u"), parts: Self.parts, ifNoneMatch: true)
        }
        if landed {
            try complete()
            #expect(transport.requests.map(\.method) == ["POST", "POST", "POST", "HEAD", "DELETE"])
        } else {
            let error = try #require(throws: GCDCatError.self) { try complete() }
            #expect(error.message == "connection lost (http://127.0.0.1:9) (after 3 attempts)")
            #expect(transport.requests.map(\.method) == ["POST", "POST", "POST", "HEAD"])
        }
    }

    /// Every answer to a PutObject lost (F2: the manifest was left, unnamed, after the rollback).
    @Test(arguments: [true, false])
    func aPutWhoseEveryAnswerWasLostIsRecognisedByItsMD5(landed: Bool) throws {
        var digester = try Digester(.md5)
        digester.update(Self.manifest)
        let md5 = digester.finalize()
        let head =
            landed
            ? ScriptedTransport.Step.answer(
                HTTPResponse(
                    status: 200, headers: ["content-length": String(Self.manifest.count), "etag": "\"\(md5)\""]))
            : .answer(HTTPResponse(status: 404))
        let transport = ScriptedTransport([Self.lost, Self.lost, Self.lost, head])
        let put = {
            try Self.manifest.withUnsafeBytes {
                try client(transport).put(self.object, body: $0, ifNoneMatch: true, metadata: [:])
            }
        }
        if landed {
            try put()
        } else {
            let error = try #require(throws: GCDCatError.self) { try put() }
            #expect(error.message == "connection lost (http://127.0.0.1:9) (after 3 attempts)")
        }
        #expect(transport.requests.map(\.method) == ["PUT", "PUT", "PUT", "HEAD"])
    }
}
