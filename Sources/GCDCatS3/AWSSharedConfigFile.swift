import GCDCatSystem

/// The INI files the AWS tools share: `~/.aws/credentials` (sections `[NAME]`) and
/// `~/.aws/config` (sections `[default]` and `[profile NAME]`).
///
/// `key = value` lines are read; a key with no value followed by indented lines (a service's
/// nested settings, `s3 =` then `  addressing_style = path`) gives keys `s3.addressing_style`.
/// `#`/`;` comment lines are skipped, as is anything before the first section. A section given
/// twice is refused, as awscli refuses it (Python's configparser: ConfigParseError).
package struct AWSSharedConfigFile {
    private(set) var sections: [String: [String: String]] = [:]

    /// ## Errors
    /// A section given twice, naming `path`, the section and both lines.
    package init(text: String, path: String? = nil) throws(S3ConfigurationRefusal) {
        var current: String?
        var parent: String?  // the top-level key whose nested settings the indented lines are
        var headerLines: [String: Int] = [:]
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, rawLine) in lines.enumerated() {
            let indented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if !indented && line.hasPrefix("[") && line.hasSuffix("]") {
                let name = String(line.dropFirst().dropLast()).trimmingSpaces
                if let first = headerLines[name] {
                    throw S3ConfigurationRefusal(
                        file: path,
                        "the section [\(name)] is given twice, on lines \(first) and \(index + 1); awscli refuses such a "
                            + "file too (ConfigParseError): merge the two into one")
                }
                headerLines[name] = index + 1
                current = name
                parent = nil
                sections[name, default: [:]] = sections[name] ?? [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingSpaces.lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingSpaces
            if indented {
                if let parent { sections[current, default: [:]]["\(parent).\(key)"] = value }
                continue
            }
            parent = value.isEmpty ? key : nil
            sections[current, default: [:]][key] = value
        }
    }

    /// `path` with a leading `~` (alone, or before `/`) replaced by `home`, as awscli expands the
    /// files' paths and a profile's `ca_bundle`; unchanged without a home, or for `~user`.
    package static func expandingHome(_ path: String, home: String?) -> String {
        guard let home, path == "~" || path.hasPrefix("~/") else { return path }
        return home + path.dropFirst()
    }

    /// Reads `path`; nil when the file does not exist.
    ///
    /// ## Errors
    /// Any failure other than a missing file (a directory, EACCES), naming the path; a section
    /// given twice (``S3ConfigurationRefusal``).
    package static func load(_ path: String) throws -> AWSSharedConfigFile? {
        guard try Syscall.statIfExists(path) != nil else { return nil }
        return try AWSSharedConfigFile(text: String(decoding: try readWholeFile(path), as: UTF8.self), path: path)
    }

    /// The credentials file's section for `profile`.
    package func credentialsSection(_ profile: String) -> [String: String]? { sections[profile] }

    /// The config file's section for `profile`: `[default]` or `[profile NAME]`.
    package func configSection(_ profile: String) -> [String: String]? {
        sections["profile \(profile)"] ?? (profile == "default" ? sections["default"] : nil)
    }

    /// The config file's `[services NAME]` section, which a profile's `services = NAME` names.
    package func servicesSection(_ name: String) -> [String: String]? { sections["services \(name)"] }
}
