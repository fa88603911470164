import Foundation
import Synchronization
import Testing

@testable import GCDCatCore

/// When a server will not undo what gcdcat started (abort an upload, delete an object it
/// placed), the user is told what is left and the command that removes it.
@Suite struct LeftBehindTests {
    static let location = ObjectLocation(bucket: "bkt", key: "dir/movie.zip")

    @Test func anUploadThatCannotBeAbortedIsNamedWithItsID() throws {
        let store = MemoryObjectStore()
        let registry = CleanupRegistry()
        let output = ObjectOutput(
            target: ObjectTarget(location: Self.location, store: store), overwrite: false, registry: registry)
        try output.begin(recording: nil)
        let upload = try #require(try store.listMultipartUploads(bucket: "bkt", prefix: "").first)
        store.failAlways("AbortMultipartUpload")
        output.discard()

        #expect(store.callCount("AbortMultipartUpload") == 2)
        #expect(
            registry.takeLeftBehind() == [
                "s3://bkt/dir/movie.zip: the multipart upload \(upload.uploadID) could not be aborted "
                    + "(AbortMultipartUpload: InternalError (HTTP 500): injected failure); its parts keep their "
                    + "storage until it is: aws s3api abort-multipart-upload --bucket bkt --key dir/movie.zip "
                    + "--upload-id \(LeftBehindAdvice.shellQuoted(upload.uploadID)) (and --endpoint-url, as for "
                    + "gcdcat, for a store other than AWS)",
                "to abort the uploads above: gcdcat uploads s3://bkt/dir/movie.zip --abort",
            ])
        #expect(registry.takeLeftBehind() == [])
    }

    @Test func anUploadAbortedAtTheSecondTryLeavesNothingToSay() throws {
        let store = MemoryObjectStore()
        let registry = CleanupRegistry()
        let output = ObjectOutput(
            target: ObjectTarget(location: Self.location, store: store), overwrite: false, registry: registry)
        try output.begin(recording: nil)
        store.failCall("AbortMultipartUpload", at: 1)
        output.discard()
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == [])
        #expect(registry.takeLeftBehind() == [])
    }

    /// An interrupted upload was reported as "removed 1 unfinished file(s)" (outside attack on
    /// issue 24): the sweep says what it did to each kind, with plurals.
    @Test func theSweepSaysWhatItAbortedDeletedAndRemoved() throws {
        let store = MemoryObjectStore()
        let registry = CleanupRegistry()
        for key in ["a", "b"] {
            let output = ObjectOutput(
                target: ObjectTarget(location: ObjectLocation(bucket: "bkt", key: key), store: store),
                overwrite: false, registry: registry)
            try output.begin(recording: nil)
        }
        _ = registry.register(.undo(UndoAction(name: "s3://bkt/placed", {})))
        let scratch = TemporaryDirectory()
        let file = scratch.path + "/unfinished"
        #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
        _ = registry.register(.file(file))

        let removed = registry.removeAll(signal: SIGINT)

        #expect(
            registry.removalNote(removed)
                == "; aborted 2 unfinished uploads, deleted 1 object this run had placed and removed 1 unfinished file")
        #expect(try store.listMultipartUploads(bucket: "bkt", prefix: "") == [])
    }

    @Test func oneAbortedUploadIsSaidInTheSingular() throws {
        let registry = CleanupRegistry()
        let output = ObjectOutput(
            target: ObjectTarget(location: Self.location, store: MemoryObjectStore()), overwrite: false,
            registry: registry)
        try output.begin(recording: nil)
        #expect(registry.removalNote(registry.removeAll(signal: SIGINT)) == "; aborted 1 unfinished upload")
        #expect(registry.removalNote([]) == "")
    }

    @Test func theSignalSweepReportsWhatItCouldNotUndo() throws {
        let store = MemoryObjectStore()
        let registry = CleanupRegistry()
        let output = ObjectOutput(
            target: ObjectTarget(location: Self.location, store: store), overwrite: false, registry: registry)
        try output.begin(recording: nil)
        let upload = try #require(try store.listMultipartUploads(bucket: "bkt", prefix: "").first)
        store.failAlways("AbortMultipartUpload")

        let removed = registry.removeAll(signal: SIGTERM)

        #expect(removed == [])
        let lines = registry.takeLeftBehind()
        #expect(lines.count == 2)
        #expect(lines.last == "to abort the uploads above: gcdcat uploads s3://bkt/dir/movie.zip --abort")
        #expect(lines.first?.hasPrefix("s3://bkt/dir/movie.zip: the multipart upload \(upload.uploadID) ") == true)
        #expect(lines.first?.contains("--upload-id \(LeftBehindAdvice.shellQuoted(upload.uploadID)) ") == true)
    }

    /// A server that stopped answering held an interrupted split for 16 minutes, silent, while
    /// its aborts ran one after another, and a second Ctrl-C named no upload (second transport
    /// attack, F4). The undos are announced, run at once, and those still waiting are listed.
    @Test func undosAreAnnouncedRunAtOnceAndThoseStillWaitingAreListed() throws {
        let registry = CleanupRegistry()
        let release = DispatchSemaphore(value: 0)
        let quickOneRan = DispatchSemaphore(value: 0)
        _ = registry.register(
            .undo(UndoAction(name: "s3://bkt/slow", { release.wait() }, ifItFails: { "slow: \($0)" })))
        _ = registry.register(
            .undo(UndoAction(name: "s3://bkt/quick", { quickOneRan.signal() }, ifItFails: { "quick: \($0)" })))
        #expect(registry.unfinishedUndos().lines.count == 2)

        let announced = Mutex<[Int]>([])
        let swept = DispatchSemaphore(value: 0)
        let removed = Mutex<[String]>([])
        Thread.detachNewThread {
            let names = registry.removeAll(signal: SIGINT) { count in announced.withLock { $0.append(count) } }
            removed.withLock { $0 = names }
            swept.signal()
        }
        // The quick undo runs while the slow one still waits on its "server".
        #expect(quickOneRan.wait(timeout: .now() + 10) == .success)
        var waiting: [String] = []
        for _ in 0..<500 where waiting.count != 1 {
            waiting = registry.unfinishedUndos().lines
            usleep(10_000)
        }
        #expect(waiting == ["slow: interrupted again while it was being undone"])
        #expect(announced.withLock { $0 } == [2])
        release.signal()
        #expect(swept.wait(timeout: .now() + 10) == .success)
        #expect(removed.withLock { $0 }.sorted() == ["s3://bkt/quick", "s3://bkt/slow"])
        #expect(registry.unfinishedUndos().lines == [])
    }

    @Test func anObjectPlacedAndNotDeletedIsNamed() {
        let line = LeftBehindAdvice.object(
            ObjectLocation(bucket: "bkt", key: "it's here.001"),
            GCDCatError(.io, path: "s3://bkt/it's here.001", syscall: "DeleteObject", message: "connection lost"))
        #expect(
            line
                == "s3://bkt/it's here.001: placed by this run, then not deleted when the run failed "
                + "(DeleteObject: connection lost): aws s3 rm 's3://bkt/it'\\''s here.001' (and --endpoint-url, as "
                + "for gcdcat, for a store other than AWS)")
    }

    @Test(arguments: [
        ("plain/key.001", "plain/key.001"),
        ("2~Abc-DEF_ghi", "2~Abc-DEF_ghi"),
        ("with space", "'with space'"),
        ("it's", "'it'\\''s'"),
        ("$(rm -rf ~)", "'$(rm -rf ~)'"),
        ("*.zip", "'*.zip'"),
        ("ünïcode", "'ünïcode'"),
        ("", "''"),
    ])
    func wordsAreQuotedForTheShell(text: String, quoted: String) {
        #expect(LeftBehindAdvice.shellQuoted(text) == quoted)
    }
}
