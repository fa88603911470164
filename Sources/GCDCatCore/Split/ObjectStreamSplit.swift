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

    /// The upload buffers and the workers sending them, shared by every part.
    private struct Uploads: Sendable {
        let pool: BufferPool
        /// Free buffers: the reader waits on it before filling one; a worker signals after uploading.
        let free: DispatchSemaphore
        let group = DispatchGroup()
        let failure = FirstError<GCDCatError>()
        let counter: TransferCounter
    }

    /// What the one pass has read so far.
    private struct Pass {
        var names: [String] = []
        var crcs: [UInt32] = []
        /// With --checksum: each part's md5/sha, hashed as it is read, like its crc32.
        var digests: [String] = []
        var whole = Checksum(.crc32)
        var ended = false
    }

    func run(counter: TransferCounter) throws -> SplitResult {
        guard case .size(let size) = operation.mode else {
            throw GCDCatError(
                .invalidInput, path: path, message: "only --size splits a stream into objects")
        }
        try operation.checkOutputs(parts: [], inputs: [])
        let chunk = MultipartSizing.partSize(total: UInt64(size), preferred: operation.objectPartSize)
        let jobs = operation.jobs
        let uploads = Uploads(
            pool: try BufferPool(count: jobs + 1, size: min(chunk, Int(clamping: size)), path: path),
            free: DispatchSemaphore(value: jobs + 1), counter: counter)
        return try OutputSet.transaction(inputs: [], overwrite: operation.overwrite, fsync: operation.fsync) { set in
            var pass = Pass()
            do {
                while !pass.ended { try sendPart(size: size, pass: &pass, set: set, uploads: uploads) }
                uploads.group.wait()
                if let error = uploads.failure.error { throw error }
            } catch {
                // Workers still hold the uploads: let them stop before the set aborts them.
                uploads.group.wait()
                throw error
            }
            let warnings = try operation.conclude(
                set, names: pass.names, crcs: pass.crcs,
                whole: Manifest.Whole(name: "standard input", size: pass.whole.length, crc32: pass.whole.value),
                hexes: pass.digests)
            return SplitResult(
                partPaths: pass.names, partCRCs: pass.crcs, manifestPath: operation.manifestPath,
                bytesRead: pass.whole.length, bytesWritten: pass.whole.length, chunks: Int64(pass.names.count),
                inputCRC: pass.whole.value, warnings: warnings)
        }
    }

    /// Reads up to `size` bytes of the stream into the next part, its buffers handed to upload
    /// workers as they fill; the part's upload starts with its first byte (none at the end).
    private func sendPart(size: Int64, pass: inout Pass, set: OutputSet, uploads: Uploads) throws {
        var object: ObjectOutput?
        var partCRC = Checksum(.crc32)
        var partDigest = try operation.digest.map { try Digester($0) }
        var length: Int64 = 0
        var number = 0
        while length < size {
            uploads.free.wait()
            let buffer = uploads.pool.take()!
            // Until an upload worker owns it, the buffer goes back on any exit: a semaphore
            // released below its start value traps in libdispatch.
            var handedOff = false
            defer {
                if !handedOff {
                    uploads.pool.give(buffer)
                    uploads.free.signal()
                }
            }
            let want = Int(min(Int64(buffer.size), size - length))
            let got = try Syscall.read(fd, into: buffer.pointer, count: want, path: path)
            if got < want { pass.ended = true }
            if got == 0 { break }
            if object == nil { object = try startPart(&pass, set: set) }
            let bytes = UnsafeRawBufferPointer(start: buffer.pointer, count: got)
            partCRC.update(bytes)
            partDigest?.update(bytes)
            pass.whole.update(bytes)
            length += Int64(got)
            number += 1
            handedOff = true
            upload(Loan(buffer: buffer), count: got, as: number, of: object!, uploads: uploads)
            if let error = uploads.failure.error { throw error }
            if pass.ended { break }
        }
        guard object != nil else { return }
        pass.crcs.append(partCRC.value)
        if let hex = partDigest?.finalize() { pass.digests.append(hex) }
    }

    /// Uploads `count` bytes of `loan` as piece `number` of `object` on a worker, which gives
    /// the buffer back when done; the first failure is kept and stops later pieces.
    private func upload(_ loan: Loan, count: Int, as number: Int, of object: ObjectOutput, uploads: Uploads) {
        DispatchQueue.global().async(group: uploads.group) {
            defer {
                uploads.pool.give(loan.buffer)
                uploads.free.signal()
            }
            guard uploads.failure.error == nil else { return }
            do {
                try object.uploadPart(number, UnsafeRawBufferPointer(start: loan.buffer.pointer, count: count))
                uploads.counter.add(bytes: Int64(count))
            } catch {
                uploads.failure.record(
                    error as? GCDCatError ?? GCDCatError(.io, path: object.location.description, message: "\(error)"))
            }
        }
    }

    /// Opens the next part's object in `set` (refusing an existing key without `--force`) and
    /// starts its upload.
    private func startPart(_ pass: inout Pass, set: OutputSet) throws -> ObjectOutput {
        let (name, sink) = try operation.startStreamedPart(index: pass.names.count, input: path, set: set)
        pass.names.append(sink.path)
        guard let object = sink.object else {
            throw GCDCatError(.invalidInput, path: name, message: "not an object")
        }
        // A streamed part's crc32 is known only once it is sent: it records none.
        try object.begin(recording: nil)
        return object
    }
}
