import GCDCatSystem

/// The CRC-32C of a whole multipart object under `--checksum-algorithm CRC32C`, and the check
/// that the server stored the bytes that make it.
package enum FullObjectChecksum {
    /// The object's CRC-32C from its parts', in part order; nil when one part's is unknown (a
    /// copy on a server that computes none): then gcdcat cannot know it without reading the
    /// bytes, sends none, and leaves the server to compute its own.
    package static func combined(_ parts: [UploadedPart]) -> UInt32? {
        var whole: UInt32 = 0
        for part in parts.sorted(by: { $0.partNumber < $1.partNumber }) {
            guard let crc32c = part.crc32c, let size = part.size else { return nil }
            whole = CRC32C.combine(whole, crc32c, secondLength: size)
        }
        return whole
    }

    package static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

extension S3Client {
    /// Compares the CRC-32C the server keeps for a completed object with `expected`, the one
    /// the parts sent make. AWS answers it in CompleteMultipartUpload's result (and refuses a
    /// wrong `x-amz-checksum-crc32c` itself); a server that does not say there (moto) is asked
    /// with HEAD and `x-amz-checksum-mode: ENABLED`; one that keeps none (Ceph RGW 16) is not
    /// compared. A mismatch deletes the object: it is not the bytes gcdcat sent.
    ///
    /// ## Errors
    /// `.checksumMismatch` naming the object and both values; the HEAD's error.
    func requireStoredChecksum(_ expected: UInt32?, of object: ObjectLocation, answer: HTTPResponse?)
        throws(GCDCatError)
    {
        guard let expected else { return }
        var stored = answer.flatMap { S3XML.value("ChecksumCRC32C", in: [UInt8]($0.body)) }
        if stored == nil {
            let response = try perform(
                S3Request(
                    operation: "HeadObject", method: "HEAD", location: object,
                    headers: ["x-amz-checksum-mode": "ENABLED"]))
            stored = response.headers["x-amz-checksum-crc32c"]
        }
        guard let stored, let value = CRC32C.parse(base64: stored), value != expected else { return }
        var message =
            "the server keeps CRC32C \(FullObjectChecksum.hex(value)) for the completed object, but the parts gcdcat "
            + "sent make \(FullObjectChecksum.hex(expected)): it does not hold the bytes sent"
        do {
            try delete(object)
            message += "; it was deleted"
        } catch {
            message += "; " + LeftBehindAdvice.object(object, error)
        }
        throw GCDCatError(
            .checksumMismatch, path: object.description, syscall: "CompleteMultipartUpload", message: message)
    }
}
