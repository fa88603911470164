import GCDCatSystem

/// Temporary files that a killed gcdcat left beside its outputs.
///
/// An output is written unnamed where the filesystem allows; a `--force` publish, and outputs
/// where it does not, pass through a named `.NAME.gcdcat-XXXXXX` in the output's folder
/// (``temporaryName(for:)``). SIGKILL or a power cut between its creation and its rename leaves
/// it there. The next run for the same output finds it by that name and says so.
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
        "\(output.displayPath): \(leftover.displayPath) is a temporary file left by a gcdcat run that was "
            + "killed while writing it; unless another gcdcat is writing \(output.displayPath) now, it may be deleted"
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
