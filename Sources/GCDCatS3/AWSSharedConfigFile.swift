import GCDCatSystem

/// The INI files the AWS tools share: `~/.aws/credentials` (sections `[NAME]`) and
/// `~/.aws/config` (sections `[default]` and `[profile NAME]`).
///
/// `key = value` lines are read; a key with no value followed by indented lines (a service's
/// nested settings, `s3 =` then `  addressing_style = path`) gives keys `s3.addressing_style`.
/// `#`/`;` comment lines are skipped, as is anything before the first section. Section names
/// are read as Python's configparser reads them for awscli: verbatim between the brackets (`[
/// default ]` is no `[default]`), and `[profile  x]`, `[profile "x"]` name profile `x` (shell
/// words, as botocore splits them); a later section of the same name replaces an earlier one
/// whole. A section given twice verbatim, or a key given twice in one section, is refused, as
/// awscli refuses it (ConfigParseError).
package struct AWSSharedConfigFile {
    private(set) var sections: [String: [String: String]] = [:]

    /// ## Errors
    /// A section, or a key in one section, given twice, naming `path`, it and both lines.
    package init(text: String, path: String? = nil) throws(S3ConfigurationRefusal) {
        var current: (name: String, header: String)?
        var parent: String?  // the top-level key whose nested settings the indented lines are
        var headerLines: [String: Int] = [:]
        var keyLines: [String: Int] = [:]
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, rawLine) in lines.enumerated() {
            let indented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if !indented && line.hasPrefix("[") && line.hasSuffix("]") {
                let header = String(line.dropFirst().dropLast())
                try Self.once(
                    header, line: index + 1, in: &headerLines, path: path, what: "the section [\(header)]",
                    fix: "merge the two into one")
                keyLines = [:]
                let name = Self.sectionName(header)
                current = (name, header)
                parent = nil
                sections[name] = [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingSpaces.lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingSpaces
            if indented {
                if let parent { sections[current.name, default: [:]]["\(parent).\(key)"] = value }
                continue
            }
            try Self.once(
                key, line: index + 1, in: &keyLines, path: path, what: "\(key) in the section [\(current.header)]",
                fix: "keep one")
            parent = value.isEmpty ? key : nil
            sections[current.name, default: [:]][key] = value
        }
    }

    /// Records that `name` (`what`, in messages) is on `line`; refuses it when `seen` has it on
    /// an earlier line, as awscli refuses a section or a key given twice.
    private static func once(
        _ name: String, line: Int, in seen: inout [String: Int], path: String?, what: String, fix: String
    ) throws(S3ConfigurationRefusal) {
        if let first = seen[name] {
            throw S3ConfigurationRefusal(
                file: path,
                "\(what) is given twice, on lines \(first) and \(line); awscli refuses such a file too "
                    + "(ConfigParseError): \(fix)")
        }
        seen[name] = line
    }

    /// The name a section header gives, as botocore reads it: `profile NAME`, `sso-session NAME`
    /// and `services NAME` split into shell words (`[profile  "x"]` is `profile x`); any other
    /// header as it is.
    static func sectionName(_ header: String) -> String {
        for kind in ["profile", "sso-session", "services"] where header.hasPrefix(kind) {
            guard let words = CredentialProcess.split(header), words.count == 2, words[0] == kind else { break }
            return "\(kind) \(words[1])"
        }
        return header
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
