import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// `count` slice-sized output buffers that input slices are multiplied into: the recovery
/// slices of a create, or the rebuilt slices of a repair.
///
/// ## Implementation details
/// Each input is spread over the cores by byte range: worker w takes the same stretch of the
/// input and of every output, so the workers never share a cache line and each input byte is
/// loaded once per output group (``GaloisField16/multiplyAdd(into:coefficients:from:count:)``).
final class Par2SliceAccumulator: @unchecked Sendable {
    let sliceSize: Int
    let count: Int
    let workers: Int
    private let storage: UnsafeMutableRawPointer

    /// ## Errors
    /// `.io` (ENOMEM) when the buffers cannot be had, naming `path`.
    init(count: Int, sliceSize: Int, jobs: Int, path: String) throws {
        self.count = count
        self.sliceSize = sliceSize
        self.workers = max(1, min(jobs, sliceSize / 4096, 64))
        let (bytes, overflow) = count.multipliedReportingOverflow(by: sliceSize)
        guard !overflow, let storage = calloc(max(bytes, 1), 1) else {
            throw GCDCatError(
                .io, path: path, syscall: "calloc", errno: ENOMEM,
                message: "\(count) slices of \(sliceSize) bytes do not fit in memory; use larger blocks or fewer")
        }
        self.storage = storage
    }

    deinit { free(storage) }

    /// Output `index`'s bytes.
    func slice(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage + index * sliceSize, count: sliceSize)
    }

    /// `output[k] += coefficients[k] · input` for every output k (a zero coefficient is skipped).
    func add(_ input: UnsafeRawPointer, coefficients: [UInt16]) {
        precondition(coefficients.count == count)
        let stretch = (sliceSize / workers + 63) & ~63
        let inputAddress = UInt(bitPattern: input)  // a pointer is not Sendable; its address is
        let body: @Sendable (Int) -> Void = { worker in
            let start = worker * stretch
            let end = min(self.sliceSize, start + stretch)
            guard start < end else { return }
            GaloisField16.multiplyAdd(
                into: (0..<self.count).map { self.storage + $0 * self.sliceSize + start }, coefficients: coefficients,
                from: UnsafeRawPointer(bitPattern: inputAddress)! + start, count: end - start)
        }
        if workers == 1 { body(0) } else { DispatchQueue.concurrentPerform(iterations: workers, execute: body) }
    }
}
