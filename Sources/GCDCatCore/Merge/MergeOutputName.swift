import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where a merge writes, worked out once for local and object parts: `-o` as given, the set's
/// name inside a folder `-o` names (as `cp FILE DIR` does), or without `-o` the set's own name
/// beside its parts.
enum MergeOutputName {
    /// The output of a set whose own output (its name beside its parts) is `derived`, nil when
    /// no name can be derived from the parts.
    ///
    /// A folder is `-o DIR/`, an existing folder, or an object prefix (`s3://b/`, `s3://b/dir/`).
    ///
    /// ## Errors
    /// `.invalidInput` naming `first` when there is no `-o` and no derived name; naming `-o`'s
    /// folder when it needs the derived name and there is none; `stat`'s error for `-o`.
    static func resolve(_ given: OutputTarget?, derived: OutputTarget?, first: String?) throws -> OutputTarget {
        guard let given else {
            guard let derived else {
                throw GCDCatError(
                    .invalidInput, path: first, message: "cannot derive an output name from it; name the output with -o"
                )
            }
            return derived
        }
        let name = derived.flatMap(leafName)
        switch given {
        case .object(var object) where object.location.key.isEmpty || object.location.key.hasSuffix("/"):
            guard let name else {
                throw GCDCatError(.invalidInput, path: object.description, message: "name the object in full")
            }
            object.location.key += name
            return .object(object)
        case .path(let path) where !path.isEmpty:
            let isFolder =
                try path.hasSuffix("/") || Syscall.statIfExists(path).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
            guard isFolder else { return given }
            guard let name else { throw GCDCatError(.invalidInput, path: path, message: "name the file in full") }
            return .path(path.hasSuffix("/") ? path + name : path + "/" + name)
        default:
            return given
        }
    }

    /// The parts of another set of which `destination`, a set's output named after it, is one
    /// (`m.001` for `m.001.001`'s set, beside `m.002`; `m.002` for `m.002.001`'s): merged over,
    /// that set's bytes were lost with `--force` (a25 M5, a27 F5). Nil when there is none, or
    /// `destination` is one of `parts`.
    static func anotherSetsParts(at destination: String, besides parts: [String]) -> [String]? {
        let names = FileSystemNames()
        guard names.exists(destination), let reading = PartDiscovery.reading(of: destination, names),
            PartDiscovery.hasNeighbour(reading, names), !parts.contains(where: { samePath($0, destination) })
        else { return nil }
        var first = reading
        while first.number > 0, PartDiscovery.existing(first.with(number: first.number - 1), names) != nil {
            first = first.with(number: first.number - 1)
        }
        let start = PartDiscovery.existing(first, names) ?? destination
        return (try? PartDiscovery.discover(from: start, names: names))?.parts ?? [start, destination]
    }

    /// The last component of an output's name: what a folder given with `-o` receives.
    private static func leafName(_ output: OutputTarget) -> String? {
        switch output {
        case .path(let path): splitPath(path).name
        case .object(let object): object.location.key.split(separator: "/").last.map(String.init) ?? object.location.key
        case .standardOutput: nil
        }
    }
}
