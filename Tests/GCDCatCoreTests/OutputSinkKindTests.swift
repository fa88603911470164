import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// An open output is one of four kinds (``OutputSink/Kind``), and what it can do follows from
/// its kind alone: no descriptor of -1 stands for "none".
@Suite struct OutputSinkKindTests {
    @Test func aNewPathIsANewFileThatTakesPositionalWrites() throws {
        let directory = TemporaryDirectory()
        let sink = try OutputSink.open(.path(directory.file("out")), inputs: [], overwrite: false)
        defer { sink.discard() }
        guard case .newFile = sink.kind else { Issue.record("\(sink.kind)"); return }
        #expect(sink.allowsPositionalWrites && sink.isRegularFile && !sink.readerGone)
        #expect(try sink.fd >= 0)
    }

    @Test func aDeviceIsWrittenIntoAndClosedNeverReplaced() throws {
        let sink = try OutputSink.open(.path("/dev/null"), inputs: [], overwrite: false)
        guard case .device(let device) = sink.kind else { Issue.record("\(sink.kind)"); return }
        let fd = device.raw
        #expect(try sink.fd == fd)
        #expect(!sink.allowsPositionalWrites && !sink.isRegularFile)
        try sink.write([1, 2, 3])
        try sink.finishWriting(fsync: false)
        try sink.publish(fsync: false)
        #expect(fcntl(fd, F_GETFD) == -1)  // closed by finishWriting
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    /// A failed set discards every output, finished ones too: a device that finishing had
    /// closed was closed again, which shut whatever file had been given its number meanwhile.
    @Test func aFinishedDeviceIsNotClosedAgainWhenDiscarded() throws {
        let sink = try OutputSink.open(.path("/dev/null"), inputs: [], overwrite: false)
        let number = try sink.fd
        try sink.finishWriting(fsync: false)
        let other = open("/dev/zero", O_RDONLY | O_CLOEXEC)
        try #require(other >= 0)
        defer { close(other) }
        // The number is free now: give it to another file, as the next open would.
        try #require(dup2(other, number) == number)
        defer { close(number) }
        sink.discard()
        #expect(openedPath(ofDescriptor: number) == "/dev/zero")
    }

    @Test func standardOutputIsWrittenThroughItsOwnDescriptor() throws {
        let sink = try OutputSink.open(.standardOutput, inputs: [], overwrite: false)
        guard case .standardOutput = sink.kind else { Issue.record("\(sink.kind)"); return }
        #expect(try sink.fd == STDOUT_FILENO)
        #expect(!sink.allowsPositionalWrites)
    }

    @Test func anObjectHasNoDescriptorAndSaysSo() throws {
        let store = MemoryObjectStore()
        let target = ObjectTarget(location: ObjectLocation(bucket: "bkt", key: "out"), store: store)
        let sink = try OutputSink.open(.object(target), inputs: [], overwrite: false)
        defer { sink.discard() }
        guard case .object = sink.kind else { Issue.record("\(sink.kind)"); return }
        let error = #expect(throws: GCDCatError.self) { _ = try sink.fd }
        #expect(error?.path == "s3://bkt/out")
        #expect(!sink.allowsPositionalWrites && !sink.isRegularFile && !sink.readerGone)
        #expect(sink.strategy(.offsets) is MultipartUploadMerge)
    }
}
