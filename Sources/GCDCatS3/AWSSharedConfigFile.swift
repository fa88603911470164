import GCDCatSystem

/// The INI files the AWS tools share: `~/.aws/credentials` (sections `[NAME]`) and
/// `~/.aws/config` (sections `[default]` and `[profile NAME]`).
///
/// Only top-level `key = value` lines are read; indented lines (a service's nested settings)
/// and `#`/`;` comment lines are skipped, as is anything before the first section.
package struct AWSSharedConfigFile {
    private(set) var sections: [String: [String: String]] = [:]

    package init(text: String) {
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            if let first = rawLine.first, first == " " || first == "\t" { continue }
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                let name = String(line.dropFirst().dropLast()).trimmingSpaces
                current = name
                sections[name, default: [:]] = sections[name] ?? [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingSpaces.lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingSpaces
            sections[current, default: [:]][key] = value
        }
    }

    /// Reads `path`; nil when the file does not exist.
    ///
    /// ## Errors
    /// Any failure other than a missing file (a directory, EACCES), naming the path.
    package static func load(_ path: String) throws -> AWSSharedConfigFile? {
        guard try Syscall.statIfExists(path) != nil else { return nil }
        return AWSSharedConfigFile(text: String(decoding: try readWholeFile(path), as: UTF8.self))
    }

    /// The credentials file's section for `profile`.
    package func credentialsSection(_ profile: String) -> [String: String]? { sections[profile] }

    /// The config file's section for `profile`: `[default]` or `[profile NAME]`.
    package func configSection(_ profile: String) -> [String: String]? {
        sections["profile \(profile)"] ?? (profile == "default" ? sections["default"] : nil)
    }
}
