import Foundation
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// `merge --remove-parts` deletes only what it verified: each part is checked again (type,
/// device and inode, size, mtime and ctime) right before its own `unlink`.
@Suite struct PartRemovalTests {
    /// Three parts of 1000 bytes, validated (as a merge reads them).
    func parts(in directory: TemporaryDirectory) throws -> [PartFile] {
        try (1...3).map { index in
            let path = directory.file("p.00\(index)")
            writeFile(path, seededBytes(1000, seed: UInt64(index)))
            return try PartFile.validate(path)
        }
    }

    @Test func unchangedPartsAreRemoved() throws {
        let directory = TemporaryDirectory()
        let outcome = try PartRemoval.remove(try parts(in: directory))
        #expect(outcome.removed == ["p.001", "p.002", "p.003"].map(directory.file))
        #expect(outcome.warnings.isEmpty)
        #expect(directory.listing().isEmpty)
    }

    /// A part appended to after it was read keeps its new bytes: it is kept, with a warning.
    @Test func aPartAppendedToAfterItWasReadIsKept() throws {
        let directory = TemporaryDirectory()
        let parts = try parts(in: directory)
        let handle = try #require(FileHandle(forWritingAtPath: parts[1].path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("new".utf8))
        try handle.close()
        let outcome = try PartRemoval.remove(parts)
        #expect(outcome.removed == [parts[0].path, parts[2].path])
        #expect(
            outcome.warnings == ["\(parts[1].path) kept: its size changed from 1000 to 1003 bytes since it was read"])
        #expect(directory.listing() == ["p.002"])
    }

    /// A write that keeps the size still moves the mtime and ctime.
    @Test func aPartRewrittenInPlaceIsKept() throws {
        let directory = TemporaryDirectory()
        let parts = try parts(in: directory)
        // One tick of the filesystem's clock at least, so the new times differ.
        var times = [timespec(tv_sec: 1, tv_nsec: 0), timespec(tv_sec: 1, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, parts[2].path, &times, 0) == 0)
        let outcome = try PartRemoval.remove(parts)
        #expect(outcome.removed == [parts[0].path, parts[1].path])
        #expect(
            outcome.warnings == [
                "\(parts[2].path) kept: it was modified since it was read (its mtime or ctime changed)"
            ])
        #expect(directory.listing() == ["p.003"])
    }

    /// The check runs before each unlink, not once for all: a part changed while the ones
    /// before it are being removed is still seen.
    @Test func eachPartIsCheckedRightBeforeItsOwnUnlink() throws {
        let directory = TemporaryDirectory()
        let parts = try parts(in: directory)
        let outcome = try PartRemoval.remove(parts) { part in
            guard part == parts[2] else { return }
            writeFile(part.path, seededBytes(999, seed: 9))
        }
        #expect(outcome.removed == [parts[0].path, parts[1].path])
        #expect(
            outcome.warnings == ["\(parts[2].path) kept: its size changed from 1000 to 999 bytes since it was read"])
    }

    @Test func aPartReplacedByAnotherFileIsKept() throws {
        let directory = TemporaryDirectory()
        let parts = try parts(in: directory)
        // Renamed aside, not deleted: a new file could get the freed inode number.
        #expect(rename(parts[0].path, directory.file("aside")) == 0)
        writeFile(parts[0].path, seededBytes(1000, seed: 1))
        let outcome = try PartRemoval.remove(parts)
        #expect(outcome.warnings == ["\(parts[0].path) kept: it was replaced by another file since it was read"])
        #expect(directory.listing() == ["aside", "p.001"])
    }

    /// A file swapped in at a part's name after the last check is not deleted: the part is
    /// renamed aside, checked there, and the file found there renamed back (the attack's case:
    /// strace held the unlink while `mv precious p.002` took the name; precious was deleted).
    @Test func aFileSwappedInAfterTheCheckIsRenamedBackNotDeleted() throws {
        let directory = TemporaryDirectory()
        let parts = try parts(in: directory)
        let precious = seededBytes(1000, seed: 42)
        let outcome = try PartRemoval.remove(
            parts,
            beforeMovingAside: { part in
                guard part == parts[1] else { return }
                #expect(rename(part.path, directory.file("moved")) == 0)
                writeFile(part.path, precious)
            })
        #expect(outcome.removed == [parts[0].path, parts[2].path])
        #expect(outcome.warnings == ["\(parts[1].path) kept: it was replaced by another file since it was read"])
        #expect(directory.listing() == ["moved", "p.002"])
        #expect(readFile(parts[1].path) == precious)
    }

    /// Removes `parts` while a writer that opened `target` before appends "appended" to it after
    /// its last check (then `also` runs, with the part moved aside).
    func removeWhileAppending(
        to target: PartFile, of parts: [PartFile], also: (PartFile) -> Void = { _ in }
    ) throws -> PartRemoval.Outcome {
        let handle = try #require(FileHandle(forWritingAtPath: target.path))
        defer { try? handle.close() }
        return try PartRemoval.remove(
            parts,
            afterLastCheck: { part in
                guard part == target else { return }
                _ = try? handle.seekToEnd()
                try? handle.write(contentsOf: Data("appended".utf8))
                also(part)
            })
    }

    /// A writer that opened a part before (a downloader still appending) and writes after the
    /// last check, before the unlink: the part was held open across the unlink, so the write is
    /// seen and the part's bytes, the new ones too, are written back at its name (they were
    /// lost, exit 0: outside attack, issue 22, with strace delaying the unlink).
    @Test func aWriteLandingBetweenTheLastCheckAndTheUnlinkIsWrittenBack() throws {
        let directory = TemporaryDirectory()
        let parts = try parts(in: directory)
        let outcome = try removeWhileAppending(to: parts[1], of: parts)
        #expect(outcome.removed == [parts[0].path, parts[2].path])
        #expect(
            outcome.warnings == [
                "\(parts[1].path) kept: it was written to while it was being removed (now 1008 bytes); its bytes were "
                    + "written back at its name"
            ])
        #expect(directory.listing() == ["p.002"])
        #expect(readFile(parts[1].path) == seededBytes(1000, seed: 2) + Array("appended".utf8))
    }

    /// The same, with a new file at the part's name meanwhile: the part's bytes are written back
    /// beside it, as `p.002.rescued`, never over the new file nor deleted (they were unlinked,
    /// exit 1: outside attack, issue 22).
    @Test func bytesWrittenBackBesideANewFileAtThePartsName() throws {
        let directory = TemporaryDirectory()
        let parts = try parts(in: directory)
        let outcome = try removeWhileAppending(to: parts[1], of: parts) { writeFile($0.path, Array("new file".utf8)) }
        #expect(outcome.removed == [parts[0].path, parts[2].path])
        #expect(
            outcome.warnings == [
                "\(parts[1].path) kept: it was written to while it was being removed (now 1008 bytes); its bytes were "
                    + "written back as \(parts[1].path).rescued, since a new file took its name meanwhile"
            ])
        #expect(directory.listing() == ["p.002", "p.002.rescued"])
        #expect(readFile(parts[1].path) == Array("new file".utf8))
        #expect(readFile(parts[1].path + ".rescued") == seededBytes(1000, seed: 2) + Array("appended".utf8))
    }
}
