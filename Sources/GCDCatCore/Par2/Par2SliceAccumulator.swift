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
/// With `overlapped`, ``flushInBackground(alongside:then:)`` multiplies a full batch in on other
/// threads while the caller fills a second batch, so reading the inputs and copying them in
/// overlaps the multiply-adds instead of waiting for them (a create's reader does).
///
/// Memory: count × sliceSize for the outputs, plus the batch (two when overlapped).
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
    /// The batch being filled.
    private var batch: UnsafeMutableRawPointer
    /// The other batch when overlapped: the one a background flush reads.
    private var spare: UnsafeMutableRawPointer?
    var overlapped: Bool { spare != nil }
    /// Row j: the coefficients of batched input j for every output.
    private var pendingCoefficients: [UInt16] = []
    private var pending = 0
    /// The background flush under way, and what runs on the caller's thread once it ends.
    private var inFlight: (done: BackgroundWork<Void>, then: () -> Void)?

    /// ## Errors
    /// `.io` (ENOMEM) when the buffers cannot be had, naming `path`.
    init(count: Int, sliceSize: Int, jobs: Int, overlapped: Bool = false, path: String) throws {
        self.count = count
        self.sliceSize = sliceSize
        self.workers = max(1, min(jobs, sliceSize / 4096, 64))
        batchCapacity = max(1, min(Self.maximumBatch, Self.batchBytes / max(sliceSize, 1)))
        let (bytes, overflow) = count.multipliedReportingOverflow(by: sliceSize)
        let noMemory = GCDCatError(
            .io, path: path, syscall: "calloc", errno: ENOMEM,
            message: "\(count) slices of \(sliceSize) bytes do not fit in memory; use larger blocks or fewer")
        guard !overflow, let storage = calloc(max(bytes, 1), 1) else { throw noMemory }
        let batchBytes = max(batchCapacity * sliceSize, 1)
        guard let batch = malloc(batchBytes) else {
            free(storage)
            throw noMemory
        }
        let spare = overlapped ? malloc(batchBytes) : nil
        guard spare != nil || !overlapped else {
            free(storage)
            free(batch)
            throw noMemory
        }
        self.storage = storage
        self.batch = batch
        self.spare = spare
        pendingCoefficients.reserveCapacity(batchCapacity * count)
    }

    deinit {
        _ = inFlight?.done.outcome()
        free(storage)
        free(batch)
        free(spare)
    }

    /// Output `index`'s bytes; every input added must have been taken in by ``flush(alongside:)``
    /// (and a background flush waited for).
    func slice(_ index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(pending == 0 && inFlight == nil, "flush the accumulator before reading its slices")
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
        waitForBackgroundFlush()
        takeBatch(alongside: work)()
    }

    /// Starts what ``flush(alongside:)`` does on other threads and returns: the next inputs go to
    /// the other batch. A batch's slots (``batched(_:)``, taken before this call) stay valid until
    /// the flush ends; `then` runs on the caller's thread when the next flush or
    /// ``waitForBackgroundFlush()`` finds it ended, so flushes end in the order they started.
    func flushInBackground(alongside work: [@Sendable () -> Void] = [], then: @escaping () -> Void = {}) {
        precondition(spare != nil, "a background flush needs an overlapped accumulator")
        waitForBackgroundFlush()
        let job = takeBatch(alongside: work)
        swap(&batch, &spare!)
        inFlight = (BackgroundWork(qos: .default, job), then)
    }

    /// Waits for the background flush, if one is under way, and runs its `then`.
    func waitForBackgroundFlush() {
        guard let flight = inFlight else { return }
        _ = flight.done.outcome()  // the multiply-adds cannot fail
        inFlight = nil
        flight.then()
    }

    /// The multiply-adds of the batch as it stands and `work`, as one job; the batch is emptied.
    private func takeBatch(alongside work: [@Sendable () -> Void]) -> @Sendable () -> Void {
        defer {
            pending = 0
            pendingCoefficients.removeAll(keepingCapacity: true)
        }
        let inputs = count > 0 ? pending : 0
        let batch = SendablePointer(batch)
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
                from: (0..<inputs).map { UnsafeRawPointer(batch.pointer + $0 * self.sliceSize + start) },
                coefficients: coefficients, count: end - start)
        }
        let total = work.count + stretches
        let serial = workers == 1 || total == 1
        return {
            if serial {
                for piece in 0..<total { body(piece) }
            } else {
                DispatchQueue.concurrentPerform(iterations: total, execute: body)
            }
        }
    }
}

/// A batch's address handed to the threads that read it while the caller fills the other.
private struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
