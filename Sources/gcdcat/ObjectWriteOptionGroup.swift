import ArgumentParser
import GCDCatCore

/// `--storage-class`, `--content-type`, `--tag`, `--sse`, `--sse-kms-key-id` and
/// `--checksum-algorithm`: how the
/// `s3://` objects that split and merge write are stored. Commands that only read have none.
struct ObjectWriteOptionGroup: ParsableArguments {
    @Option(
        name: .customLong("storage-class"),
        help: ArgumentHelp(
            "The storage class of the s3:// objects written (STANDARD, STANDARD_IA, INTELLIGENT_TIERING, GLACIER_IR, "
                + "…); default the bucket's.",
            valueName: "class"))
    var storageClass: String?

    @Option(
        name: .customLong("content-type"),
        help: ArgumentHelp(
            "The Content-Type of the s3:// data objects written; default guessed from each name (.zip "
                + "application/zip, a part .001 application/octet-stream). Checksum lists stay text/plain.",
            valueName: "type"))
    var contentType: String?

    @Option(
        name: .customLong("tag"),
        help: ArgumentHelp("A tag of each s3:// object written (repeatable, at most 10).", valueName: "key=value"))
    var tags: [String] = []

    @Option(
        name: .customLong("sse"),
        help: ArgumentHelp(
            "Server-side encryption of the s3:// objects written: AES256 (S3's keys) or aws:kms.",
            valueName: "AES256|aws:kms"))
    var sse: String?

    @Option(
        name: .customLong("sse-kms-key-id"),
        help: ArgumentHelp("The KMS key (id or ARN) for --sse aws:kms; default the account's S3 key.", valueName: "id"))
    var sseKMSKeyID: String?

    @Option(
        name: .customLong("checksum-algorithm"),
        help: ArgumentHelp(
            "A full-object CRC32C on each s3:// object written, sent with every part and checked by the server "
                + "(and against the value it keeps, where it returns one).",
            valueName: "CRC32C"))
    var checksumAlgorithm: String?

    /// Each value checked before any work; an option that no s3:// output would use is refused
    /// rather than quietly ignored.
    func check(writesObjects: Bool, customerKey: Bool) throws {
        _ = try objectOptions()
        if sseKMSKeyID != nil && sse != "aws:kms" {
            throw ValidationError("--sse-kms-key-id goes with --sse aws:kms.")
        }
        if sse != nil && customerKey {
            throw ValidationError(
                "--sse and --sse-c-key contradict each other: an object has one encryption; give one.")
        }
        guard !writesObjects, let given = givenOptionName else { return }
        throw s3OnlyRefusal(given, scope: "s3:// outputs", command: "this command writes local files")
    }

    /// The first option given, as typed.
    private var givenOptionName: String? {
        if storageClass != nil { return "--storage-class" }
        if contentType != nil { return "--content-type" }
        if !tags.isEmpty { return "--tag" }
        if sse != nil { return "--sse" }
        if checksumAlgorithm != nil { return "--checksum-algorithm" }
        return sseKMSKeyID != nil ? "--sse-kms-key-id" : nil
    }

    /// The options as the S3 client takes them (the request-wide ones come from
    /// ``ObjectStoreOptions``).
    func objectOptions(_ base: S3ObjectOptions = S3ObjectOptions()) throws -> S3ObjectOptions {
        var options = base
        if let storageClass {
            guard let known = S3StorageClass(rawValue: storageClass) else {
                throw ValidationError(
                    "--storage-class \(storageClass) is not an S3 storage class; give one of \(S3StorageClass.names).")
            }
            options.storageClass = known
        }
        if let contentType {
            guard contentType.contains("/"), !contentType.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw ValidationError(
                    "--content-type '\(contentType)' is not a media type (TYPE/SUBTYPE, as text/csv).")
            }
            options.contentType = contentType
        }
        options.tags = try parsedTags()
        if let checksumAlgorithm {
            guard let known = S3ChecksumAlgorithm(rawValue: checksumAlgorithm.uppercased()) else {
                throw ValidationError(
                    "--checksum-algorithm \(checksumAlgorithm): gcdcat sends CRC32C (full-object) only; CRC32, "
                        + "CRC64NVME, SHA1 and SHA256 are not implemented.")
            }
            options.checksumAlgorithm = known
        }
        switch sse {
        case nil: break
        case "AES256": options.serverSideEncryption = .aes256
        case "aws:kms": options.serverSideEncryption = .kms(keyID: sseKMSKeyID)
        case let other?:
            throw ValidationError("--sse \(other) is not AES256 or aws:kms (for SSE-C, give --sse-c-key FILE).")
        }
        return options
    }

    private func parsedTags() throws -> [S3Tag] {
        guard tags.count <= S3Tag.maximumCount else {
            throw ValidationError("--tag given \(tags.count) times; S3 allows \(S3Tag.maximumCount) tags per object.")
        }
        var parsed: [S3Tag] = []
        for text in tags {
            switch S3Tag.parse(text) {
            case .success(let tag):
                if parsed.contains(where: { $0.key == tag.key }) {
                    throw ValidationError(
                        "--tag \(text): the key '\(tag.key)' is given twice; S3 keeps one value per key.")
                }
                parsed.append(tag)
            case .failure(let error):
                throw ValidationError("--tag \(text) \(error.reason).")
            }
        }
        return parsed
    }
}
