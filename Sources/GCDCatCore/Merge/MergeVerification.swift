#if canImport(Glibc)
    import Glibc
#endif

/// When merge checks the parts against an SFV manifest.
public enum ManifestPolicy: Sendable, Equatable {
    /// Use `NAME.sfv` beside a discovered `NAME.001`, or `--manifest`, if there is one.
    case automatic
    /// Fail unless a manifest is found (`--verify`).
    case required
    /// Never look (`--no-verify`).
    case disabled
}

/// What a merge checked before writing, and what the output must then be.
public struct MergeVerification: Sendable, Equatable {
    /// The manifest used, if any.
    public var manifestPath: String?
    /// The crc32 the output must have: all part CRCs combined. Nil without a manifest.
    public var expectedCRC: UInt32?
    /// Things the user should know that are not errors.
    public var warnings: [String]

    /// Checks `parts` against the manifest at `manifestPath` (or, when nil and `policy` allows,
    /// `candidate` if it exists), before a byte is written. `candidate` is nil unless the parts
    /// were discovered from a first part.
    ///
    /// ## Errors
    /// - `.missingPart` naming a listed part that is not there (the last one included, which
    ///   numbering alone cannot see), exit 1;
    /// - `.invalidInput` when the parts and the manifest's list differ, or a name is rejected;
    /// - `.checksumMismatch` naming a part whose crc32 differs, exit 2;
    /// - `.missingPart` when `policy` is `.required` and there is no manifest.
    public static func check(
        _ parts: [PartFile], manifestPath explicit: String?, candidate: String?, policy: ManifestPolicy,
        jobs: Int
    ) throws -> MergeVerification {
        var path = explicit
        if path == nil, policy != .disabled, let candidate, try Syscall.statIfExists(candidate) != nil {
            path = candidate
        }
        guard policy != .disabled || explicit != nil, let path else {
            if policy == .required {
                throw GCDCatError(
                    .missingPart, path: candidate,
                    message: "not found: --verify needs a manifest (give one with --manifest PATH)")
            }
            // Only a discovered set (one with a candidate manifest name) can have lost its tail
            // unseen; an explicit list of parts is the user's own.
            return MergeVerification(
                manifestPath: nil, expectedCRC: nil, warnings: candidate == nil ? [] : truncationWarning(parts))
        }
        let manifest = try Manifest.load(path)
        try matchEntries(manifest, manifestPath: path, to: parts)
        let checksums = try FileChecksum.of(parts, jobs: jobs)
        for (index, checksum) in checksums.enumerated() where checksum.value != manifest.entries[index].crc32 {
            throw GCDCatError(
                .checksumMismatch, path: parts[index].path,
                message:
                    "crc32 is \(checksum.hex), but \(path) line \(manifest.entries[index].line) says \(hex8(manifest.entries[index].crc32)): the part is corrupt"
            )
        }
        let combined = Checksum.combine(.crc32, checksums)
        if let whole = manifest.whole, whole.size != combined.length || whole.crc32 != combined.value {
            throw GCDCatError(
                .checksumMismatch, path: path,
                message:
                    "the parts join to \(combined.length) bytes with crc32 \(combined.hex), but the manifest records \(whole.size) bytes with \(hex8(whole.crc32)) for \(whole.name)"
            )
        }
        return MergeVerification(manifestPath: path, expectedCRC: combined.value, warnings: [])
    }

    /// Each manifest entry must be the part at the same position (same device and inode).
    static func matchEntries(_ manifest: Manifest, manifestPath: String, to parts: [PartFile]) throws {
        for entry in manifest.entries {
            if let rejection = entry.rejection {
                throw GCDCatError(
                    .invalidInput, path: manifestPath,
                    message: "line \(entry.line): '\(entry.name)' rejected (\(rejection)); it was not opened")
            }
        }
        for (index, entry) in manifest.entries.enumerated() {
            let resolved = ManifestVerifier.resolve(entry, manifestPath: manifestPath)
            guard let info = try Syscall.statIfExists(resolved) else {
                throw GCDCatError(
                    .missingPart, path: resolved,
                    message: "missing part: \(manifestPath) lists it (line \(entry.line)) but it does not exist")
            }
            guard index < parts.count else {
                throw GCDCatError(
                    .missingPart, path: resolved,
                    message: "\(manifestPath) lists it (line \(entry.line)), but it is not among the parts being merged"
                )
            }
            let part = parts[index]
            guard UInt64(info.st_dev) == part.device, UInt64(info.st_ino) == part.inode else {
                throw GCDCatError(
                    .invalidInput, path: part.path,
                    message: "is part \(index + 1), but \(manifestPath) line \(entry.line) lists \(entry.name) there")
            }
        }
        if parts.count > manifest.entries.count {
            throw GCDCatError(
                .invalidInput, path: parts[manifest.entries.count].path,
                message: "is not listed in \(manifestPath), which lists \(manifest.entries.count) parts")
        }
    }

    /// A set whose last part is as large as the others may have lost later parts unseen.
    static func truncationWarning(_ parts: [PartFile]) -> [String] {
        guard parts.count > 1, let last = parts.last, last.size > 0,
            parts.allSatisfy({ $0.size == last.size })
        else { return [] }
        return [
            "the last part, \(last.path), is exactly as large as the others: if the set had more parts, "
                + "they are missing and the output is short. A manifest (NAME.sfv, see 'gcdcat split') would tell."
        ]
    }
}
