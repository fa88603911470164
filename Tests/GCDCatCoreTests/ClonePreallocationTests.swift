import Foundation
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// `auto` reserves (fallocate) only the bytes it will copy: the ranges it will clone need no
/// space, so a merge larger than the free space succeeds on XFS when its parts are clonable.
@Suite(.serialized) struct ClonePreallocationTests {
    /// Three random parts of `mebibytes` each (block-aligned sizes) in `folder`, written by dd.
    func writeParts(in folder: String, mebibytes: Int, count: Int = 3) -> [String] {
        let names = (1...count).map { "p.00\($0)" }
        let script = names.map { "dd if=/dev/urandom of=\($0) bs=1M count=\(mebibytes) status=none" }
            .joined(separator: " && ")
        let (status, output) = XFSImage.sh(script, in: folder)
        #expect(status == 0, "\(output)")
        return names.map { "\(folder)/\($0)" }
    }

    /// Free bytes on the filesystem holding `path`.
    func freeBytes(_ path: String) -> Int64 {
        var info = statvfs()
        #expect(statvfs(path, &info) == 0)
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    @Test(.enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"))
    func aMergeLargerThanTheFreeSpaceIsClonedOnXFS() throws {
        let xfs = try #require(XFSImage())
        let paths = writeParts(in: xfs.mountPoint, mebibytes: 120)
        let total: Int64 = 3 * 120 << 20
        // The precondition of the case: the output could not be written, only cloned.
        #expect(freeBytes(xfs.mountPoint) < total)
        let output = "\(xfs.mountPoint)/out"
        let result = try MergeOperation(partPaths: paths, output: .path(output), strategy: .auto).run().1
        #expect(result.clonedBytes == total)
        let (status, compared) = XFSImage.sh("cat p.001 p.002 p.003 | cmp - out", in: xfs.mountPoint)
        #expect(status == 0, "\(compared)")
    }

    /// The parts that will be copied (unaligned, after an unaligned one) are reserved; the
    /// aligned ones before them and an unaligned last part that ends the output are not.
    @Test(.enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"))
    func onlyTheRangesToBeCopiedAreReserved() throws {
        let xfs = try #require(XFSImage())
        let sizes = [8192, 65536, 5000, 8192, 4096]
        let bytes = seededBytes(sizes.reduce(0, +), seed: 3)
        var offset = 0
        var parts: [PartFile] = []
        for (index, size) in sizes.enumerated() {
            let path = "\(xfs.mountPoint)/q.00\(index + 1)"
            writeFile(path, Array(bytes[offset..<offset + size]))
            parts.append(try PartFile.validate(path))
            offset += size
        }
        let sink = try OutputSink.open(.path("\(xfs.mountPoint)/out"), inputs: parts, overwrite: false)
        defer { sink.discard() }
        let ranges = copiedRanges(MergeRequest(parts: parts), into: sink)
        // 5000 is not whole blocks; everything after it starts unaligned.
        let expected: [Range<Int64>] = [73728..<(73728 + 5000 + 8192 + 4096)]
        #expect(ranges == expected)
    }

    /// Whether the test folders (``TemporaryDirectory``, in /tmp) are on a filesystem that clones.
    static let temporaryFolderClones: Bool = {
        let kind = XFSImage.sh("stat -f -c %T /tmp", in: "/").1
        return kind.hasPrefix("xfs") || kind.hasPrefix("btrfs")
    }()

    /// Elsewhere (ext4, tmpfs) nothing is cloned, and every byte is reserved as before.
    @Test(
        .enabled(if: !temporaryFolderClones, "needs a temporary folder on a filesystem that cannot clone (ext4, tmpfs)")
    )
    func aFilesystemThatCannotCloneReservesEverything() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("a"), seededBytes(8192, seed: 1))
        let part = try PartFile.validate(directory.file("a"))
        let sink = try OutputSink.open(.path(directory.file("out")), inputs: [part], overwrite: false)
        defer { sink.discard() }
        #expect(copiedRanges(MergeRequest(parts: [part]), into: sink) == nil)
    }
}
