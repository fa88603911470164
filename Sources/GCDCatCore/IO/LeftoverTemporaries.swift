import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Temporary files that a killed gcdcat left beside its outputs.
///
/// An output is written unnamed where the filesystem allows; a `--force` publish, and outputs
/// where it does not, pass through a named `.NAME.gcdcat-XXXXXX` in the output's folder
/// (``temporaryName(for:)``). SIGKILL or a power cut between its creation and its rename leaves
/// it there. The next run that publishes the same output finds it by that name and names it
/// when no process holds it (``noteStale(for:)``).
///
/// ## Implementation details
/// Every output file is `flock`ed from its creation while its descriptor is open, and the
/// kernel drops the lock with the last descriptor, whoever kills the process. So a leftover
/// whose lock can be taken is nobody's now; one whose lock is held is another gcdcat's output
/// under way, and is not mentioned.
public enum LeftoverTemporaries {
    /// The leftovers of each of `outputs` (paths): one folder read per folder, so thousands of
    /// parts cost one `readdir` each folder, not one each part. Sorted by name.
    public static func find(for outputs: [String]) -> [(leftover: String, output: String)] {
        var byFolder: [String: [String: String]] = [:]
        for output in outputs {
            let (directory, name) = splitPath(output)
            byFolder[directory, default: [:]][temporaryStem(of: name)] = output
        }
        var found: [(leftover: String, output: String)] = []
        for (directory, stems) in byFolder {
            guard let entries = try? directoryEntries(directory) else { continue }
            for entry in entries {
                guard let stem = stem(ofTemporary: entry), let output = stems[stem] else { continue }
                found.append((directory == "." ? entry : directory + "/" + entry, output))
            }
        }
        return found.sorted {
            PathName.bytes(of: $0.leftover).lexicographicallyPrecedes(PathName.bytes(of: $1.leftover))
        }
    }

    /// "out: .out.gcdcat-Ab3dE9 is left from a gcdcat that was killed while writing it; …".
    public static func note(leftover: String, output: String) -> String {
        "\(output.displayPath): \(leftover.displayPath) looks like a temporary file left by a gcdcat run that was "
            + "killed while writing it, and no process holds it; if it is not a file of yours, it may be deleted"
    }

    /// Names, in a note each (``RunNotes``), the leftovers of `outputs` (paths just published)
    /// that are regular files no process holds. Never removes one: a file of the user's may
    /// bear such a name, or be this very run's input (an outside test had both removed).
    public static func noteStale(for outputs: [String]) {
        for found in find(for: outputs) where isStale(found.leftover) {
            RunNotes.post(note(leftover: found.leftover, output: found.output))
        }
    }

    /// Whether `path` is a regular file whose lock no process holds (or, where locks are not
    /// supported, cannot be told to be held).
    static func isStale(_ path: String) -> Bool {
        let fd = PathName.withPathCString(path) { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        let file = OwnedDescriptor(adopting: fd)
        var opened = stat()
        guard fstat(file.raw, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG else { return false }
        guard flock(file.raw, LOCK_EX | LOCK_NB) != 0 else { return true }
        return gcdcat_errno() != EWOULDBLOCK
    }

    /// NAME in `.NAME.gcdcat-XXXXXX`, or nil for any other name.
    static func stem(ofTemporary entry: String) -> String? {
        let bytes = PathName.bytes(of: entry)
        let marker = Array(".gcdcat-".utf8)
        guard bytes.first == UInt8(ascii: "."), bytes.count > 1 + marker.count + 6 else { return nil }
        let suffix = bytes.suffix(6)
        guard suffix.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }),
            Array(bytes.dropLast(6).suffix(marker.count)) == marker
        else { return nil }
        return PathName.decode(bytes.dropFirst().dropLast(6 + marker.count))
    }
}
