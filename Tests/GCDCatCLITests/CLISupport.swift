import Foundation
// Module-wide: every test file of this target gets toolExists and seededBytes.
@_exported import GCDCatTestSupport
import Testing

/// The built `gcdcat`, beside the test bundle in the build folder.
let gcdcatPath: String = {
    let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    return bundle.appendingPathComponent("gcdcat").path
}()

/// The repository's Fixtures folder.
let fixturesPath: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path

struct RunResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs the built gcdcat with `arguments` in `directory`.
@discardableResult
func gcdcat(_ arguments: [String], in directory: String? = nil) throws -> RunResult {
    try run(executable: gcdcatPath, arguments, in: directory)
}

/// A `Process` that runs gcdcat with every signal at its default disposition
/// (`env --default-signal`), for tests that signal it. gcdcat leaves a signal alone when it
/// starts ignored (as `nohup` and a shell's background jobs arrange), and Foundation's `Process`
/// starts its children with SIGPIPE ignored, so the test must not rely on what it inherited.
func signalableGCDCat(_ arguments: [String]) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["--default-signal", gcdcatPath] + arguments
    return process
}

/// ``signalableGCDCat(_:)`` as a shell command word: `env --default-signal '…/gcdcat'`.
let signalableGCDCatCommand = "env --default-signal '\(gcdcatPath)'"

/// Runs `executable` with `arguments` in `directory`; standard input is empty.
@discardableResult
func run(executable: String, _ arguments: [String], in directory: String? = nil) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    return try collect(process)
}

/// Runs `process` with no standard input and returns its status and both outputs.
func collect(_ process: Process) throws -> RunResult {
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes while the child runs, so a full pipe cannot block it.
    let errData = ReadAll(err.fileHandleForReading)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus, stdout: outData, stderr: errData.wait())
}

/// Reads a handle to its end on another thread.
final class ReadAll: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Runs a tool found on the PATH.
@discardableResult
func runTool(_ tool: String, _ arguments: [String], in directory: String? = nil) throws -> RunResult {
    let path =
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? tool
    return try run(executable: path, arguments, in: directory)
}

/// A fresh folder, removed afterwards.
final class Scratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "gcdcat-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ data: Data) throws {
        try data.write(to: URL(fileURLWithPath: file(name)))
    }

    func read(_ name: String) -> Data? { FileManager.default.contents(atPath: file(name)) }

    func listing() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// Makes the files `names` new files with the same bytes, without the mark a split left on
    /// them (PartMark): parts that came by download or a plain `cp` carry none.
    func unmark(_ names: [String]) throws {
        for name in names {
            let data = try #require(read(name), "\(name) exists")
            try FileManager.default.removeItem(atPath: file(name))
            try write(name, data)
        }
    }

    /// Every file here whose name starts with `prefix`.
    func files(startingWith prefix: String) -> [String] { listing().filter { $0.hasPrefix(prefix) } }
}

/// Deterministic pseudo-random bytes.
func randomData(_ count: Int, seed: UInt64) -> Data {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    var data = Data(capacity: count + 8)
    while data.count < count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        withUnsafeBytes(of: (state >> 11).littleEndian) { data.append(contentsOf: $0) }
    }
    return data.prefix(count)
}
