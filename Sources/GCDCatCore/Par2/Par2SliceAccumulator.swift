import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// `count` slice-sized output buffers that input slices are multiplied into: the recovery
/// slices of a create, or the rebuilt slices of a repair.
///
/// ## Implementation details
/// Inputs are gathered into a batch (``batchBytes`` of them, at least one) and multiplied in
/// together: the kernel takes every input of the batch through a small tile of the outputs
/// before the next tile (``GaloisField16/multiplyAdd(into:from:coefficients:count:)``), so the
/// outputs, ~100 MiB for 10% of 1 GiB, cross the memory bus once per batch rather than once
/// per input. The batch is spread over the cores by byte range: a piece of work takes the same
/// stretch of every input and output, so the cores never share a cache line.
///
/// Memory: count × sliceSize for the outputs, plus the batch.
final class Par2SliceAccumulator: @unchecked Sendable {
    /// What a batch of inputs may hold (rounded up to one slice).
    static let batchBytes = 16 << 20
    /// At most this many inputs a batch, so the coefficient rows stay small for tiny slices.
    static let maximumBatch = 256

    let sliceSize: Int
    let count: Int
    let workers: Int
    let batchCapacity: Int
    private let storage: UnsafeMutableRawPointer
    private let batch: UnsafeMutableRawPointer
    /// Row j: the coefficients of batched input j for every output.
    private var pendingCoefficients: [UInt16] = []
    private var pending = 0

    /// ## Errors
    /// `.io` (ENOMEM) when the buffers cannot be had, naming `path`.
    init(count: Int, sliceSize: Int, jobs: Int, path: String) throws {
        self.count = count
        self.sliceSize = sliceSize
        self.workers = max(1, min(jobs, sliceSize / 4096, 64))
        batchCapacity = max(1, min(Self.maximumBatch, Self.batchBytes / max(sliceSize, 1)))
        let (bytes, overflow) = count.multipliedReportingOverflow(by: sliceSize)
        let noMemory = GCDCatError(
            .io, path: path, syscall: "calloc", errno: ENOMEM,
            message: "\(count) slices of \(sliceSize) bytes do not fit in memory; use larger blocks or fewer")
        guard !overflow, let storage = calloc(max(bytes, 1), 1) else { throw noMemory }
        guard let batch = malloc(max(batchCapacity * sliceSize, 1)) else {
            free(storage)
            throw noMemory
        }
        self.storage = storage
        self.batch = batch
        pendingCoefficients.reserveCapacity(batchCapacity * count)
    }

    deinit {
        free(storage)
        free(batch)
    }

    /// Output `index`'s bytes; every input added must have been taken in by ``flush(alongside:)``.
    func slice(_ index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(pending == 0, "flush the accumulator before reading its slices")
        return UnsafeMutableRawBufferPointer(start: storage + index * sliceSize, count: sliceSize)
    }

    /// Whether the batch is full: ``flush(alongside:)`` before the next ``add(_:coefficients:)``.
    var isFull: Bool { pending == batchCapacity }

    /// Batched input `slot` (the padded copy the work will read), for hashing it alongside.
    func batched(_ slot: Int) -> UnsafeRawBufferPointer {
        precondition(slot < pending)
        return UnsafeRawBufferPointer(start: batch + slot * sliceSize, count: sliceSize)
    }

    /// Queues `output[k] += coefficients[k] · input` for every output k (a zero coefficient is
    /// skipped): `input` (at most sliceSize bytes, zero-padded) is copied into the batch, whose
    /// slot it returns; the work happens at ``flush(alongside:)``.
    @discardableResult
    func add(_ input: UnsafeRawBufferPointer, coefficients: [UInt16]) -> Int {
        precondition(coefficients.count == count && input.count <= sliceSize && !isFull)
        let slot = batch + pending * sliceSize
        if let base = input.baseAddress { slot.copyMemory(from: base, byteCount: input.count) }
        if input.count < sliceSize { _ = memset(slot + input.count, 0, sliceSize - input.count) }
        pendingCoefficients += coefficients
        pending += 1
        return pending - 1
    }

    /// Batch slots still free.
    var freeSlots: Int { batchCapacity - pending }

    /// Queues `inputs` consecutive inputs that `fill` writes straight into the batch (a run of
    /// a file's slices, read with one `pread` and no copy): `fill` gets `inputs` × sliceSize
    /// bytes and returns how many it wrote; the rest is zeroed (PAR2 pads the last slice).
    /// `coefficients` holds a row of ``count`` values for each input.
    func add(
        inputs: Int, coefficients: [UInt16], fill: (UnsafeMutableRawBufferPointer) throws -> Int
    ) rethrows {
        precondition(inputs > 0 && inputs <= freeSlots && coefficients.count == inputs * count)
        let start = batch + pending * sliceSize
        let bytes = inputs * sliceSize
        let filled = try fill(UnsafeMutableRawBufferPointer(start: start, count: bytes))
        if filled < bytes { _ = memset(start + filled, 0, bytes - filled) }
        pendingCoefficients += coefficients
        pending += inputs
    }

    /// Multiplies the batched inputs into the outputs, and runs `work` (hashing the batch, say)
    /// on the same cores meanwhile: the pieces are dealt out as the cores come free, `work` first.
    func flush(alongside work: [@Sendable () -> Void] = []) {
        defer {
            pending = 0
            pendingCoefficients.removeAll(keepingCapacity: true)
        }
        let inputs = count > 0 ? pending : 0
        // Several stretches a worker, so that a core done with `work` still finds some.
        let pieces = workers == 1 ? 1 : workers * 4
        let stretch = max(4096, (sliceSize / pieces + 63) & ~63)
        let stretches = inputs == 0 ? 0 : (sliceSize + stretch - 1) / stretch
        let coefficients = pendingCoefficients
        let body: @Sendable (Int) -> Void = { piece in
            if piece < work.count { return work[piece]() }
            let start = (piece - work.count) * stretch
            let end = min(self.sliceSize, start + stretch)
            GaloisField16.multiplyAdd(
                into: (0..<self.count).map { self.storage + $0 * self.sliceSize + start },
                from: (0..<inputs).map { UnsafeRawPointer(self.batch + $0 * self.sliceSize + start) },
                coefficients: coefficients, count: end - start)
        }
        let total = work.count + stretches
        if workers == 1 || total == 1 {
            for piece in 0..<total { body(piece) }
        } else {
            DispatchQueue.concurrentPerform(iterations: total, execute: body)
        }
    }
}
