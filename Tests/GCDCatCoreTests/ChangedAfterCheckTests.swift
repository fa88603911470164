import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// A part written after the manifest check and before the copy must not reach a published
/// output (an md5/sha list once left the output unchecked, and
/// `--remove-parts` trusted "parts unchanged", which a write through a mapping can fool).
/// The write happens in `measure`, which runs after a check that precedes the copy.
@Suite struct ChangedAfterCheckTests {
    /// `data.001`…`data.003`, 152 345 bytes in all.
    static func set(in directory: TemporaryDirectory) -> (paths: [String], whole: [UInt8]) {
        writeParts(in: directory, sizes: [70_000, 70_000, 12_345], seed: 29)
    }

    /// Overwrites the first bytes of `path` in place, keeping its size.
    static func scribble(_ path: String) {
        let fd = open(path, O_WRONLY)
        precondition(fd >= 0)
        let bytes: [UInt8] = Array("EVIL".utf8)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4, 100) }
        close(fd)
    }

    /// Merges from `first`, scribbling on `victim` between the check and the copy.
    static func mergeScribbling(
        _ first: String, victim: String, configure: (inout MergeOperation) -> Void = { _ in }
    ) throws -> MergeOperation.Outcome {
        var operation = MergeOperation(arguments: [first], output: nil, jobs: 2)
        configure(&operation)
        return try operation.merge(notice: { _ in }) { _, _, body in
            scribble(victim)
            return try body(TransferCounter())
        }
    }

    static func sha256sumLine(_ bytes: [UInt8], name: String) throws -> String {
        var digester = try Digester(.sha256)
        bytes.withUnsafeBytes { digester.update($0) }
        return digester.finalize() + "  " + name + "\n"
    }

    @Test func aWholeFileSha256ListGivesTheOutputACRCToMeet() throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = Self.set(in: directory)
        writeFile(directory.file("data.sha256"), Array(try Self.sha256sumLine(whole, name: "data").utf8))
        // Unchanged: merged, and the output's crc32 is the whole file's.
        let clean = try MergeOperation(arguments: [paths[0]], output: nil, jobs: 2).merge(notice: { _ in }) {
            _, _, body in try body(TransferCounter())
        }
        var expected = Checksum(.crc32)
        expected.update(whole)
        #expect(clean.verification.expectedCRC == expected.value)
        #expect(clean.result.crc32 == expected.value)
        #expect(readFile(directory.file("data")) == whole)
        removeTree(directory.file("data"))
        // Written after the check: refused, nothing published.
        let error = expectGCDCatError { _ = try Self.mergeScribbling(paths[0], victim: paths[1]) }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.message.hasSuffix("a part changed during the merge") == true, "\(String(describing: error))")
        #expect(!fileExists(directory.file("data")))
    }

    @Test func aPerPartSha256ListGivesTheOutputACRCToMeet() throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = Self.set(in: directory)
        var list = ""
        var offset = 0
        for (index, size) in [70_000, 70_000, 12_345].enumerated() {
            list += try Self.sha256sumLine(Array(whole[offset..<offset + size]), name: "data.00\(index + 1)")
            offset += size
        }
        writeFile(directory.file("data.sha256"), Array(list.utf8))
        let error = expectGCDCatError { _ = try Self.mergeScribbling(paths[0], victim: paths[2]) }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.message.hasSuffix("a part changed during the merge") == true, "\(String(describing: error))")
        #expect(!fileExists(directory.file("data")))
    }

    /// `--remove-parts` (``MergeOperation/requiresCRCManifest``) checks the parts first and the
    /// output's own bytes after: the scribble is caught by the output's crc32, not by the
    /// overlapped check (which would read the scribbled part and blame it).
    @Test func removingPartsChecksTheOutputBytesNotThePartsStamps() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = try OverlappedVerificationTests.verifiedSet(
            in: directory.path, sizes: [70_000, 70_000, 12_345])
        let error = expectGCDCatError {
            _ = try Self.mergeScribbling(paths[0], victim: paths[1]) { $0.requiresCRCManifest = true }
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.message.hasSuffix("a part changed during the merge") == true, "\(String(describing: error))")
        #expect(!fileExists(directory.file("data")))
    }
}
