import GCDCatS3

/// What a run did in object storage, for the report: how much passed through the client, and
/// how much the server copied itself.
public struct ObjectStoreFacts: Codable, Sendable, Equatable {
    /// Requests sent (HEAD, GET, UploadPart, UploadPartCopy, …).
    public var requests: Int
    /// Object bytes received plus bytes sent to move the data (the check's reads aside): about
    /// zero for a server-side merge of big parts.
    public var clientBytes: UInt64
    /// Bytes received to move the data (the check's reads aside), and bytes sent.
    public var downloadedBytes: UInt64
    public var uploadedBytes: UInt64
    /// Output parts copied on the server (UploadPartCopy), and their bytes.
    public var copyParts: Int
    public var copiedBytes: UInt64
    /// Parts downloaded (whole, or a big part's head) and uploaded again rather than copied on
    /// the server: under S3's 5 MiB part minimum, or with a `%` in the key (``ObjectMergeJob``).
    public var downloadedSmallParts: [String]
    /// Bytes read to check the parts against the manifest (what a merge downloads anyway is
    /// checked as it passes, and not counted); of the parts checked, how many
    /// crc32s were the server's `x-amz-checksum-crc32`, how many gcdcat's record in the part's
    /// metadata (`x-amz-meta-gcdcat-crc32`), both taken without reading, and how many were read.
    public var checkBytesRead: UInt64
    public var serverChecksums: Int
    public var recordedChecksums: Int
    public var readChecksums: Int

    public init(
        counts: CountingObjectStore.Counts, copyParts: Int = 0, copiedBytes: UInt64 = 0,
        downloadedSmallParts: [String] = [], checkBytesRead: UInt64 = 0, serverChecksums: Int = 0,
        recordedChecksums: Int = 0, readChecksums: Int = 0
    ) {
        self.requests = counts.requests
        let moved = counts.bytesDownloaded - min(counts.bytesDownloaded, checkBytesRead)
        self.clientBytes = moved + counts.bytesUploaded
        self.downloadedBytes = moved
        self.uploadedBytes = counts.bytesUploaded
        self.copyParts = copyParts
        self.copiedBytes = copiedBytes
        self.downloadedSmallParts = downloadedSmallParts
        self.checkBytesRead = checkBytesRead
        self.serverChecksums = serverChecksums
        self.recordedChecksums = recordedChecksums
        self.readChecksums = readChecksums
    }

    /// Lines for the text report.
    var lines: [String] {
        let size = { (bytes: UInt64) in ByteSize.humanReadable(Int64(bytes)) }
        var lines = [
            "s3 requests    \(requests)",
            "client bytes   \(clientBytes) moved the data (\(size(downloadedBytes)) down, \(size(uploadedBytes)) up)",
        ]
        if copyParts > 0 { lines.append("server copies  \(counted(copyParts, "part")), \(size(copiedBytes))") }
        if !downloadedSmallParts.isEmpty {
            let shown =
                downloadedSmallParts.count > 4
                ? "\(downloadedSmallParts.count) parts, \(downloadedSmallParts[0]) … \(downloadedSmallParts.last!)"
                : downloadedSmallParts.joined(separator: ", ")
            lines.append(
                "downloaded     \(shown), whole or in part, and uploaded again: \(Self.whyNotCopied(downloadedSmallParts))"
            )
        }
        if checkBytesRead > 0 || serverChecksums + recordedChecksums + readChecksums > 0 {
            lines.append(
                "check          \(counted(readChecksums, "part")) read (\(size(checkBytesRead)) for the check alone), "
                    + "\(counted(serverChecksums, "crc32")) "
                    + "from the server, \(recordedChecksums) from gcdcat's record")
        }
        return lines
    }

    /// Why the parts `names` were not copied on the server, as the notes of ``ObjectMergeJob`` say.
    private static func whyNotCopied(_ names: [String]) -> String {
        let percent = names.filter { $0.contains("%") }.count
        return [
            percent < names.count ? "S3 copies no upload part under 5 MiB" : nil,
            percent > 0 ? "Ceph RGW decodes a copy source with '%' twice" : nil,
        ].compactMap { $0 }.joined(separator: "; ")
    }
}
