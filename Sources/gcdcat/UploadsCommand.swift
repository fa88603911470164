import ArgumentParser
import FoundationEssentials
import GCDCatCore

extension GCDCat {
    /// `gcdcat uploads s3://BUCKET/PREFIX [--abort]`: the multipart uploads left under a prefix.
    struct Uploads: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "uploads",
            abstract: "List, or abort, the unfinished multipart uploads under an s3:// prefix.",
            usage: "gcdcat uploads [<options>] s3://BUCKET[/PREFIX]",
            discussion: """
                A run killed with SIGKILL (or whose server stopped answering) leaves its \
                multipart uploads on the server: S3 shows them in no listing of objects, yet \
                their parts keep their storage, and their cost, until aborted. So does a \
                CreateMultipartUpload whose answer was lost. This command lists every upload \
                under the prefix, one line each: the object, the upload ID, its age by the \
                server's clock, and the parts and bytes it holds (ListParts). --abort aborts \
                them. Every upload gcdcat starts carries x-amz-meta-gcdcat-run, but S3 shows \
                no metadata before completion, so uploads of other tools under the prefix are \
                listed (and aborted) too; --older-than spares those still running (the summary \
                says how many it spared). The summary goes to standard error; -q leaves it out.

                Exit status: 0 listed (or all aborted), 1 a request failed (each upload that \
                could not be aborted is named, with the awscli command that aborts it).

                Examples:
                  gcdcat uploads s3://bkt/movie.zip.
                  gcdcat uploads s3://bkt/backups/ --abort --older-than 1d
                """)

        @Argument(help: "s3://BUCKET/PREFIX: the uploads whose keys start with PREFIX (none: the whole bucket).")
        var prefix: String

        @Flag(help: "Abort the uploads listed (and free the storage their parts hold).")
        var abort = false

        @Option(
            name: .customLong("older-than"),
            // Unconditional: `-5` is the option's (refused) value, not a flag it lacks.
            parsing: .unconditional,
            help: ArgumentHelp(
                "Only uploads initiated at least this long ago, by the server's clock: 90, 90s, 15m, 2h, 7d.",
                valueName: "age"),
            transform: parseAge)
        var olderThan: Double?

        @OptionGroup var output: OutputOptions

        var json: Bool { output.json }

        @OptionGroup var parallelism: JobsOption
        @OptionGroup var objectStore: ObjectStoreOptions

        func validate() throws {
            _ = try Self.bucketAndPrefix(prefix)
        }

        /// `s3://BUCKET`, `s3://BUCKET/` (the whole bucket) or `s3://BUCKET/PREFIX`.
        static func bucketAndPrefix(_ text: String) throws -> (bucket: String, prefix: String) {
            guard ObjectLocation.isObjectPath(text) else {
                throw ValidationError("\(text.displayPath): not an s3:// prefix; give s3://BUCKET/PREFIX")
            }
            let rest = text.dropFirst(ObjectLocation.scheme.count)
            let bucket = String(rest.prefix { $0 != "/" })
            let keyPrefix = String(rest.dropFirst(bucket.count + 1))
            do {
                // The bucket's rules, checked on a name with a key.
                _ = try ObjectLocation(parsing: ObjectLocation.scheme + bucket + "/k")
            } catch let error as GCDCatError {
                throw ValidationError("\(text.displayPath): \(error.message)")
            }
            if keyPrefix.contains(ObjectLocation.versionMarker) {
                throw ValidationError(
                    "\(text.displayPath): ?versionId= names a version of an object; an unfinished upload has "
                        + "none yet: give s3://BUCKET/PREFIX")
            }
            return (bucket, keyPrefix)
        }

        func run() throws {
            let (bucket, keyPrefix) = try Self.bucketAndPrefix(prefix)
            let jobs = parallelism.jobs(objects: true)
            let store = try reportingFailures { try objectStore.makeStore() }
            var uploads = try reportingFailures {
                try LeftoverUploads.find(in: bucket, prefix: keyPrefix, store: store, jobs: jobs)
            }
            let found = uploads.count
            if let olderThan { uploads = uploads.filter { ($0.ageSeconds ?? -1) >= olderThan } }
            let spared = found - uploads.count
            let failures = abort ? LeftoverUploads.abort(uploads, store: store, jobs: jobs) : []
            let failed = Set(failures.map(\.0.upload))
            if json {
                let document = UploadsJSON(
                    prefix: prefix, abort: abort,
                    uploads: uploads.map { UploadsJSON.Upload($0, aborted: abort && !failed.contains($0.upload)) },
                    olderThanSeconds: olderThan, spared: spared, exitStatus: failures.isEmpty ? 0 : 1)
                try reportingFailures { try StandardStreams.writeOutput(JSONDocument.encode(document)) }
            } else {
                for upload in uploads {
                    let done = abort && !failed.contains(upload.upload) ? "aborted " : ""
                    try reportingFailures { try StandardStreams.printLine(done + Self.line(upload)) }
                }
            }
            for (upload, error) in failures {
                writeToStandardError("gcdcat: \(LeftBehindAdvice.upload(upload.upload, error))\n")
            }
            if !output.quiet {
                let summary = Self.summary(uploads, under: prefix, aborting: abort, failed: failed.count)
                let sparedNote = olderThan.map { Self.sparedNote(spared, olderThan: $0, listed: uploads.count) } ?? ""
                writeToStandardError("gcdcat: \(summary)\(sparedNote)\n")
            }
            if !failures.isEmpty { throw ExitCode(1) }
        }

        /// `s3://b/k: upload ID, initiated 3m12s ago, 2 parts, 33554432 bytes`.
        static func line(_ upload: LeftoverUpload) -> String {
            let age = upload.ageSeconds.map { "initiated \(ageText($0)) ago" } ?? "initiated at an unknown time"
            let parts = upload.parts == 1 ? "1 part" : "\(upload.parts) parts"
            return "\(upload.upload.location.description.displayPath): upload \(upload.upload.uploadID), \(age), "
                + "\(parts), \(upload.bytes) bytes"
        }

        static func summary(_ uploads: [LeftoverUpload], under prefix: String, aborting: Bool, failed: Int) -> String {
            let bytes = uploads.reduce(0) { $0 + $1.bytes }
            let count = uploads.count == 1 ? "1 upload" : "\(uploads.count) uploads"
            guard !uploads.isEmpty else { return "no unfinished uploads under \(prefix.displayPath)" }
            guard aborting else {
                return "\(count) under \(prefix.displayPath) hold \(bytes) bytes; --abort aborts them"
            }
            return failed == 0
                ? "aborted \(count) under \(prefix.displayPath), \(bytes) bytes freed"
                : "\(failed) of \(count) under \(prefix.displayPath) could not be aborted"
        }

        /// What `--older-than` left out: `; 2 uploads younger than 1h were spared (--older-than): …`
        /// (an upload of unknown age is spared too); empty when it spared none. `listed` is how
        /// many it kept.
        static func sparedNote(_ spared: Int, olderThan: Double, listed: Int) -> String {
            guard spared > 0 else { return listed == 0 ? " older than \(limitText(olderThan))" : "" }
            let count = spared == 1 ? "1 upload" : "\(spared) uploads"
            let were = spared == 1 ? "was" : "were"
            return (listed == 0 ? " older than \(limitText(olderThan))" : "")
                + "; \(count) younger than \(limitText(olderThan)) \(were) spared (--older-than): a smaller "
                + "--older-than, or none, includes \(spared == 1 ? "it" : "them")"
        }

        /// An `--older-than` age as given in its largest whole unit: `90s`, `15m`, `2h`, `7d`.
        static func limitText(_ seconds: Double) -> String {
            let whole = Int(seconds)
            for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where whole >= size && whole % size == 0 {
                return "\(whole / size)\(unit)"
            }
            return "\(whole)s"
        }

        /// Seconds as `45s`, `3m12s`, `2h05m` or `4d03h`.
        static func ageText(_ seconds: Double) -> String {
            let whole = Int(seconds.rounded(.down))
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            switch whole {
            case ..<60: return "\(whole)s"
            case ..<3600: return "\(whole / 60)m\(two(whole % 60))s"
            case ..<86_400: return "\(whole / 3600)h\(two(whole % 3600 / 60))m"
            default: return "\(whole / 86_400)d\(two(whole % 86_400 / 3600))h"
            }
        }
    }
}

/// `90`, `90s`, `15m`, `2h` or `7d` as seconds.
func parseAge(_ text: String) throws -> Double {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
    let unit = text.last.flatMap { units[$0] }
    let digits = unit == nil ? Substring(text) : text.dropLast()
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
        throw ValidationError("'\(text)' is not an age: give seconds, or a number with s, m, h or d (15m, 2h, 7d)")
    }
    guard let value = UInt32(digits) else { throw AgeTooLarge(text: text) }
    return Double(value) * (unit ?? 1)
}

/// An age whose number is past 4294967295 (of its unit): a number, but too large to be one.
struct AgeTooLarge: Error, CustomStringConvertible {
    var text: String
    var description: String { "'\(text)' is too large: the number may be at most \(UInt32.max) (of s, m, h or d)" }
}

/// The JSON document of `gcdcat uploads --json` (docs/json-schema/uploads.json).
struct UploadsJSON: Encodable {
    struct Upload: Encodable {
        var object: String
        var uploadId: String
        /// Seconds since 1970 by the server's clock, as ListMultipartUploads gave it.
        var initiated: Double?
        var ageSeconds: Double?
        var parts: Int
        var bytes: UInt64
        var aborted: Bool

        init(_ upload: LeftoverUpload, aborted: Bool) {
            object = upload.upload.location.description
            uploadId = upload.upload.uploadID
            initiated = upload.initiated
            ageSeconds = upload.ageSeconds
            parts = upload.parts
            bytes = upload.bytes
            self.aborted = aborted
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(uploadId, forKey: .uploadId)
            try container.encode(initiated, forKey: .initiated)
            try container.encode(ageSeconds, forKey: .ageSeconds)
            try container.encode(parts, forKey: .parts)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(aborted, forKey: .aborted)
        }

        enum CodingKeys: String, CodingKey { case object, uploadId, initiated, ageSeconds, parts, bytes, aborted }
    }

    var schemaVersion = JSONDocument.schemaVersion
    var command = "uploads"
    var prefix: String
    var abort: Bool
    var uploads: [Upload]
    /// `--older-than` in seconds (null without it), and how many uploads under the prefix it
    /// left out as younger (0 without it): what the text summary's "were spared" says.
    var olderThanSeconds: Double?
    var spared: Int
    var exitStatus: Int32

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(command, forKey: .command)
        try container.encode(prefix, forKey: .prefix)
        try container.encode(abort, forKey: .abort)
        try container.encode(uploads, forKey: .uploads)
        // Null without --older-than, rather than left out.
        try container.encode(olderThanSeconds, forKey: .olderThanSeconds)
        try container.encode(spared, forKey: .spared)
        try container.encode(exitStatus, forKey: .exitStatus)
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, command, prefix, abort, uploads, olderThanSeconds, spared, exitStatus
    }
}
