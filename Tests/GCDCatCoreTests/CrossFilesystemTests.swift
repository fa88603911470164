import Foundation
import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Parts on tmpfs, output on the build folder's disk: `copy_file_range` fails with EXDEV there,
/// so every strategy's cross-filesystem path runs with several workers on one output.
@Suite(.serialized) struct CrossFilesystemTests {
    /// A folder on the disk that holds the build, not on /tmp (which may be tmpfs elsewhere).
    static func diskDirectory() -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build").path
        var template = Array("\(root)/gcdcat-xfs-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        guard let made else { preconditionFailure("mkdtemp under \(root) failed") }
        return made
    }

    static func shmDirectory() -> String? {
        var template = Array("/dev/shm/gcdcat-xfs-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
    }

    @Test(
        .enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm"), "needs a writable /dev/shm (tmpfs)"),
        arguments: MergeStrategyKind.allCases, [2, 4])
    func tmpfsPartsMergeIntoADiskOutput(strategy: MergeStrategyKind, jobs: Int) throws {
        let shm = try #require(Self.shmDirectory())
        defer { removeTree(shm) }
        let disk = Self.diskDirectory()
        defer { removeTree(disk) }
        // 2000 parts of 16 KiB, then 3 larger ones: many small copies race, large ones span slices.
        let sizes = Array(repeating: 16384, count: 2000) + [3 << 20, (3 << 20) + 1, 12345]
        let whole = seededBytes(sizes.reduce(0, +), seed: UInt64(jobs))
        var paths: [String] = []
        var offset = 0
        for (index, size) in sizes.enumerated() {
            let path = "\(shm)/p.\(zeroPadded(index + 1, width: 4))"
            writeFile(path, Array(whole[offset..<offset + size]))
            paths.append(path)
            offset += size
        }
        for round in 0..<3 {
            let output = "\(disk)/out\(round)"
            let result = try merge(paths, into: output, strategy: strategy, highWater: 1 << 20, jobs: jobs)
            #expect(result.bytes == Int64(whole.count))
            let got = readFile(output) ?? []
            #expect(got.count == whole.count)
            // A Bool, not the arrays: Swift Testing's diff of 32 MiB arrays takes minutes to print.
            let identical = got == whole
            #expect(identical, "round \(round) (\(result.method ?? "-")): the output differs from the parts")
        }
        #expect(directoryListing(disk) == ["out0", "out1", "out2"])
    }
}

func directoryListing(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}
