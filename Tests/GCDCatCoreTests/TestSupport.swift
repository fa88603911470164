import GCDCatCore
// Module-wide: every test file of this target gets seededBytes and toolExists.
@_exported import GCDCatTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh folder under /tmp, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/gcdcat-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        guard let made else { preconditionFailure("mkdtemp failed") }
        path = made
    }

    deinit {
        removeTree(path)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Names in the folder, sorted, hidden ones included.
    func listing() -> [String] {
        ((try? directoryEntries(path)) ?? []).sorted()
    }
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    // Close-on-exec: a child another test spawns meanwhile would keep it open for writing, and a
    // script written here could not be run (ETXTBSY, "Text file busy").
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "cannot create \(path)")
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            precondition(n > 0, "write failed")
            offset += n
        }
    }
    close(fd)
}

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        result.append(contentsOf: buffer.prefix(n))
    }
    return result
}

func fileExists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

/// Writes `sizes.count` parts named `base.001`, … cut from one seeded stream; returns the whole.
@discardableResult
func writeParts(in directory: TemporaryDirectory, base: String = "data", sizes: [Int], seed: UInt64 = 1)
    -> (paths: [String], whole: [UInt8])
{
    let whole = seededBytes(sizes.reduce(0, +), seed: seed)
    var offset = 0
    var paths: [String] = []
    for (index, size) in sizes.enumerated() {
        let path = directory.file("\(base).\(zeroPadded(index + 1, width: 3))")
        writeFile(path, Array(whole[offset..<offset + size]))
        paths.append(path)
        offset += size
    }
    return (paths, whole)
}

/// Merges `paths` into `output` with `strategy`, returning the result.
func merge(
    _ paths: [String], into output: String, strategy: MergeStrategyKind, highWater: Int = 4096,
    computeCRC: Bool = false, jobs: Int = 3
) throws -> MergeResult {
    let operation = MergeOperation(
        partPaths: paths, output: .path(output), strategy: strategy,
        limits: try ChunkLimits(highWater: highWater), jobs: jobs, computeCRC: computeCRC)
    return try operation.run().1
}

/// Runs `body` and returns the ``GCDCatError`` it throws, failing the test if it throws none.
func expectGCDCatError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> GCDCatError? {
    do {
        try body()
        Issue.record("expected a GCDCatError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as GCDCatError {
        return error
    } catch {
        Issue.record("expected a GCDCatError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// What descriptor `number` of this process is open on (`/proc/self/fd/N`'s link), or nil when
/// it is closed. A number reused meanwhile by a test running in parallel names another file.
func openedPath(ofDescriptor number: Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: 4097)
    let count = readlink("/proc/self/fd/\(number)", &buffer, 4096)
    guard count > 0 else { return nil }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
