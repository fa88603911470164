import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// True when process `pid` holds an unfinished output in `directory`: an unnamed `O_TMPFILE`
/// file (its `/proc/PID/fd` link reads `DIRECTORY/#INODE (deleted)`) or a named temporary
/// `.NAME.gcdcat-XXXXXX` there.
func holdsUnfinishedOutput(pid: pid_t, in directory: String) -> Bool {
    let folder = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    for descriptor in descriptors {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")
        else { continue }
        if target.hasPrefix(folder + "/#") || target.hasPrefix(folder + "/.") && target.contains(".gcdcat-") {
            return true
        }
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.contains { $0.hasPrefix(".") && $0.contains(".gcdcat-") }
}

/// Runs `script` with `sh -c` in `directory`.
@discardableResult
func shell(_ script: String, in directory: String? = nil) throws -> RunResult {
    try run(executable: "/bin/sh", ["-c", script], in: directory)
}
