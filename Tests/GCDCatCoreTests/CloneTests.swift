import Foundation
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// A small XFS image with reflink, loop-mounted for one test; nil (with the reason printed)
/// where that is impossible (not root, no xfsprogs, no loop devices).
///
/// A test that needs one says so with `.enabled(if: XFSImage.canMount, …)` and then requires
/// the image, so it is reported as skipped where XFS cannot be had, and fails where it could.
final class XFSImage {
    /// Whether an image can be made and mounted here (tried once).
    static let canMount: Bool = XFSImage() != nil

    let folder: TemporaryDirectory
    var mountPoint: String { folder.file("mnt") }

    init?() {
        folder = TemporaryDirectory()
        let script = """
            set -e
            [ "$(id -u)" = 0 ] || { echo 'needs root'; exit 1; }
            command -v mkfs.xfs >/dev/null || { echo 'mkfs.xfs is not installed'; exit 1; }
            mkdir mnt && truncate -s 512M img && mkfs.xfs -q -m reflink=1 img && mount -o loop img mnt
            """
        let (status, output) = Self.sh(script, in: folder.path)
        guard status == 0 else {
            print("skipped: no XFS loop image: \(output.prefix(200))")
            return nil
        }
    }

    deinit {
        _ = Self.sh("umount mnt || umount -l mnt", in: folder.path)
    }

    @discardableResult
    static func sh(_ script: String, in directory: String) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return (-1, "cannot run /bin/sh") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// Writes parts of `sizes` into `folder`, cut from one seeded stream; returns paths and whole.
private func parts(in folder: String, sizes: [Int], seed: UInt64 = 7) -> (paths: [String], whole: [UInt8]) {
    let whole = seededBytes(sizes.reduce(0, +), seed: seed)
    var offset = 0
    var paths: [String] = []
    for (index, size) in sizes.enumerated() {
        let path = "\(folder)/p.\(zeroPadded(index + 1, width: 3))"
        writeFile(path, Array(whole[offset..<offset + size]))
        paths.append(path)
        offset += size
    }
    return (paths, whole)
}

/// `auto` clones block-aligned parts (FICLONERANGE), falls back per part where a part is not
/// aligned, and through the seam falls back clone → copy_file_range → read/write. Every output
/// is byte-compared.
@Suite(.serialized) struct CloneTests {
    typealias Rule = FaultInjection.Rule
    /// Aligned parts, an unaligned one in the middle, and an unaligned last part.
    static let mixed = [8192, 65536, 5000, 8192, 4096, 70001]

    @Test(
        .enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"),
        arguments: [1, 2, 4])
    func alignedPartsAreClonedOnXFS(jobs: Int) throws {
        let xfs = try #require(XFSImage())
        let (paths, whole) = parts(in: xfs.mountPoint, sizes: [65536, 1 << 20, 4096, 12345])
        let result = try merge(paths, into: "\(xfs.mountPoint)/out", strategy: .auto, jobs: jobs)
        #expect(readFile("\(xfs.mountPoint)/out") == whole)
        #expect(result.method == "clone")
        #expect(result.clonedBytes == Int64(whole.count))
        #expect(result.copiedBytes == 0)
        #expect(result.notes.isEmpty)
    }

    @Test(
        .enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"),
        arguments: [1, 2, 4])
    func unalignedPartsFallBackPerPartAndSaySo(jobs: Int) throws {
        let xfs = try #require(XFSImage())
        let (paths, whole) = parts(in: xfs.mountPoint, sizes: Self.mixed)
        let result = try merge(paths, into: "\(xfs.mountPoint)/out", strategy: .auto, jobs: jobs)
        #expect(readFile("\(xfs.mountPoint)/out") == whole)
        // 8192 and 65536 start aligned and are whole blocks; 5000 is not; after it nothing is aligned.
        #expect(result.clonedBytes == Int64(8192 + 65536))
        #expect(result.copiedBytes == Int64(whole.count) - 8192 - 65536)
        #expect(result.method == "copy_file_range")
        #expect(
            result.notes == [
                "4 of 6 parts not cloned: their offsets or sizes are not multiples of the filesystem block; copied instead"
            ])
    }

    @Test(
        .enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"),
        arguments: [EOPNOTSUPP, EXDEV, ENOTTY])
    func cloneRefusedFallsBackToCopyFileRange(code: Int32) throws {
        let xfs = try #require(XFSImage())
        let (paths, whole) = parts(in: xfs.mountPoint, sizes: [65536, 1 << 20, 4096])
        let (result, fired) = try FaultInjection.withFaults(
            [Rule(.cloneRange, pathContains: xfs.mountPoint, times: .max, .fail(code))]
        ) {
            try merge(paths, into: "\(xfs.mountPoint)/out", strategy: .auto, jobs: 1)
        }
        #expect(readFile("\(xfs.mountPoint)/out") == whole)
        // Refused once, never asked again by that copier.
        #expect(fired == 1)
        #expect(result.method == "copy_file_range")
        #expect(result.clonedBytes == 0)
        #expect(result.notes.isEmpty)
    }

    @Test(.enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"))
    func cloneEINVALFallsBackForThatPartOnly() throws {
        let xfs = try #require(XFSImage())
        let (paths, whole) = parts(in: xfs.mountPoint, sizes: [65536, 1 << 20, 4096])
        let (result, fired) = try FaultInjection.withFaults(
            [Rule(.cloneRange, pathContains: xfs.mountPoint, .fail(EINVAL))]
        ) {
            try merge(paths, into: "\(xfs.mountPoint)/out", strategy: .auto, jobs: 1)
        }
        #expect(readFile("\(xfs.mountPoint)/out") == whole)
        #expect(fired == 1)
        #expect(result.clonedBytes == Int64((1 << 20) + 4096))
        #expect(result.copiedBytes == 65536)
    }

    @Test(
        .enabled(if: XFSImage.canMount, "needs root, xfsprogs and a loop device for an XFS image"), arguments: [1, 2])
    func cloneThenCopyFileRangeRefusedFallsBackToReadWrite(jobs: Int) throws {
        let xfs = try #require(XFSImage())
        let (paths, whole) = parts(in: xfs.mountPoint, sizes: Self.mixed)
        let (result, _) = try FaultInjection.withFaults(
            [
                Rule(.cloneRange, pathContains: xfs.mountPoint, times: .max, .fail(EOPNOTSUPP)),
                Rule(.copyFileRange, pathContains: xfs.mountPoint, times: .max, .fail(EXDEV)),
            ]
        ) {
            try merge(paths, into: "\(xfs.mountPoint)/out", strategy: .auto, jobs: jobs)
        }
        #expect(readFile("\(xfs.mountPoint)/out") == whole)
        #expect(result.method == "read/write")
        #expect(result.clonedBytes == 0)
    }

    /// Where the filesystem cannot clone (ext4, tmpfs under /tmp here), nothing is cloned and
    /// no note blames alignment for what the filesystem refused.
    @Test func aFilesystemThatCannotCloneCopiesWithoutANote() throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = parts(in: directory.path, sizes: [65536, 1 << 20, 5000, 4096])
        let result = try merge(paths, into: directory.file("out"), strategy: .auto, jobs: 2)
        #expect(readFile(directory.file("out")) == whole)
        #expect(result.clonedBytes == 0)
        #expect(result.copiedBytes == Int64(whole.count))
        #expect(result.method == "copy_file_range")
        #expect(result.notes.isEmpty)
    }
}
