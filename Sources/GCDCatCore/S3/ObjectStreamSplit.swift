import Dispatch
import GCDCatSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Splits a stream (standard input) into objects in one pass, by `--size`, with bounded memory:
/// `tar c dir | gcdcat split - --size 1G --prefix s3://b/backup.tar.`.
///
/// Each part is its own multipart upload (``ObjectOutput``), started when its first byte
/// arrives. The stream is read in order into upload buffers of
/// ``MultipartSizing/partSize(total:preferred:)`` (16 MiB by default, grown so a part needs at
/// most 10 000 of them), each crc32'd as it is read and handed to an upload worker; at most
/// `jobs` uploads run at once and `jobs + 1` buffers exist, so memory is
/// `(jobs + 1) × buffer` however long the stream. The manifest's crc32s come from the bytes as
/// they were read.
///
/// Nothing is named until the stream ends and every upload is done; a failure or a signal
/// aborts every upload, and a failed publish deletes what this run placed.
///
/// ## Errors
/// `.invalidInput` for a mode other than `--size` (lines are cut in a local file); a failed
/// read of the stream; the store's errors; those of the output checks.
struct ObjectStreamSplit: Sendable {
    var operation: SplitOperation
    let fd: Int32
    let path: String

    /// One upload buffer on loan, sendable to the worker that uploads it.
    private struct Loan: @unchecked Sendable {
        let buffer: BufferPool.Buffer
    }

    func run(counter: TransferCounter) throws -> SplitResult {
        guard case .size(let size) = operation.mode else {
            throw GCDCatError(
                .invalidInput, path: path, message: "only --size splits a stream into objects")
        }
        try operation.checkOutputs(parts: [], inputs: [])
        let chunk = MultipartSizing.partSize(total: UInt64(size), preferred: operation.objectPartSize)
        let jobs = operation.jobs
        let pool = try BufferPool(count: jobs + 1, size: min(chunk, Int(clamping: size)), path: path)
        // Free buffers: the reader waits on it before filling one; a worker signals after uploading.
        let free = DispatchSemaphore(value: jobs + 1)
        let uploads = DispatchGroup()
        let failure = FirstFailure()
        var sinks: [OutputSink] = []
        var names: [String] = []
        var crcs: [Checksum] = []
        // With --checksum: each part's md5/sha, hashed as it is read, like its crc32.
        var digests: [String] = []
        var whole = Checksum(.crc32)
        var ended = false
        do {
            while !ended {
                var part: OutputSink?
                var partCRC = Checksum(.crc32)
                var partDigest = try operation.digest.map { try Digester($0) }
                var length: Int64 = 0
                var number = 0
                while length < size {
                    free.wait()
                    let buffer = pool.take()!
                    // Until an upload worker owns it, the buffer goes back on any exit: a
                    // semaphore released below its start value traps in libdispatch.
                    var handedOff = false
                    defer {
                        if !handedOff {
                            pool.give(buffer)
                            free.signal()
                        }
                    }
                    let want = Int(min(Int64(buffer.size), size - length))
                    let got = try Syscall.read(fd, into: buffer.pointer, count: want, path: path)
                    if got < want { ended = true }
                    if got == 0 { break }
                    if part == nil {
                        let sink = try startPart(at: names.count)
                        part = sink
                        sinks.append(sink)
                        names.append(sink.path)
                    }
                    let bytes = UnsafeRawBufferPointer(start: buffer.pointer, count: got)
                    partCRC.update(bytes)
                    partDigest?.update(bytes)
                    whole.update(bytes)
                    length += Int64(got)
                    number += 1
                    let object = part!.object!
                    let loan = Loan(buffer: buffer)
                    let partNumber = number
                    handedOff = true
                    DispatchQueue.global().async(group: uploads) {
                        defer {
                            pool.give(loan.buffer)
                            free.signal()
                        }
                        guard failure.error == nil else { return }
                        do {
                            try object.uploadPart(
                                partNumber, UnsafeRawBufferPointer(start: loan.buffer.pointer, count: got))
                            counter.add(bytes: Int64(got))
                        } catch {
                            failure.record(
                                error as? GCDCatError
                                    ?? GCDCatError(.io, path: object.location.description, message: "\(error)"))
                        }
                    }
                    if let error = failure.error { throw error }
                    if ended { break }
                }
                if part != nil {
                    crcs.append(partCRC)
                    if let hex = partDigest?.finalize() { digests.append(hex) }
                }
            }
            uploads.wait()
            if let error = failure.error { throw error }
            var lists: [OutputSink] = []
            if let list = try operation.writeDigestList(names: names, hexes: digests, inputs: []) { lists.append(list) }
            if let manifestPath = operation.manifestPath {
                let entryNames = try SplitOperation.manifestNames(names, manifestPath: manifestPath)
                let manifest = Manifest(
                    entries: zip(entryNames, crcs).map { Manifest.Entry(name: $0, crc32: $1.value) },
                    whole: Manifest.Whole(name: "standard input", size: whole.length, crc32: whole.value))
                lists.append(try operation.writeManifest(manifest, to: manifestPath, inputs: []))
            }
            try operation.publishAll(parts: sinks, lists: lists)
            let total = whole.length
            return SplitResult(
                partPaths: names, partCRCs: crcs.map(\.value), manifestPath: operation.manifestPath,
                bytesRead: total, bytesWritten: total, chunks: Int64(names.count), inputCRC: whole.value)
        } catch {
            uploads.wait()
            for sink in sinks { sink.discard() }
            throw error
        }
    }

    /// Opens part `index`'s object (refusing an existing key without `--force`) and starts its
    /// upload.
    private func startPart(at index: Int) throws -> OutputSink {
        try SplitLimits.requirePartCount(Int64(index + 1), path: path)
        let name = try operation.naming.name(at: index)
        if let manifestPath = operation.manifestPath, name == manifestPath {
            throw GCDCatError(
                .invalidInput, path: manifestPath,
                message: "the manifest would be part \(name.displayPath); name another manifest")
        }
        let sink = try OutputSink.open(try operation.target(name), inputs: [], overwrite: operation.overwrite)
        do {
            // A streamed part's crc32 is known only once it is sent: it records none.
            try sink.object!.begin(recording: nil)
        } catch {
            sink.discard()
            throw error
        }
        return sink
    }
}

/// The first error of several workers; later ones are dropped.
final class FirstFailure: Sendable {
    private let first = Mutex<GCDCatError?>(nil)

    var error: GCDCatError? { first.withLock { $0 } }

    func record(_ error: GCDCatError) {
        first.withLock { if $0 == nil { $0 = error } }
    }
}
