import Testing

@testable import GCDCatCore

/// The accumulator batches its inputs and multiplies a batch in at a flush: batch after batch,
/// on one core or two, it must come to what input-by-input multiply-adds give.
@Suite struct Par2SliceAccumulatorTests {
    @Test(arguments: [1, 2])
    func batchesAddUpToInputByInputMultiplyAdds(jobs: Int) throws {
        let sliceSize = 8192
        let accumulator = try Par2SliceAccumulator(count: 5, sliceSize: sliceSize, jobs: jobs, path: "test")
        let inputCount = 2 * accumulator.batchCapacity + 3  // two full batches and a partial one
        var expected = [[UInt8]](repeating: [UInt8](repeating: 0, count: sliceSize), count: 5)
        for input in 0..<inputCount {
            // A short input is padded with zeros, as a file's last slice.
            let bytes = seededBytes(input % 7 == 0 ? 1000 : sliceSize, seed: UInt64(input))
            let padded = bytes + [UInt8](repeating: 0, count: sliceSize - bytes.count)
            let coefficients = (0..<5).map { UInt16(truncatingIfNeeded: input &* 7919 &+ $0 &* 104_729) }
            for output in 0..<5 {
                expected[output].withUnsafeMutableBytes { target in
                    padded.withUnsafeBytes { source in
                        GaloisField16.multiplyAdd(
                            into: target.baseAddress!, from: source.baseAddress!, count: sliceSize,
                            coefficient: coefficients[output])
                    }
                }
            }
            bytes.withUnsafeBytes { _ = accumulator.add($0, coefficients: coefficients) }
            if accumulator.isFull { accumulator.flush() }
        }
        accumulator.flush()
        for output in 0..<5 {
            #expect(Array(accumulator.slice(output)) == expected[output], "output \(output)")
        }
    }

    /// Overlapped, each batch is multiplied in while the next is filled: the outputs must still
    /// come to the input-by-input multiply-adds, each batch's work must see that batch's bytes
    /// (not the next one's, being written into the other buffer), and each `then` must run once,
    /// in order, on the caller's thread.
    @Test(arguments: [1, 2])
    func backgroundFlushesAddUpAndHashTheirOwnBatch(jobs: Int) throws {
        let sliceSize = 8192
        let accumulator = try Par2SliceAccumulator(
            count: 4, sliceSize: sliceSize, jobs: jobs, overlapped: true, path: "test")
        let inputCount = 3 * accumulator.batchCapacity + 5
        var expected = [[UInt8]](repeating: [UInt8](repeating: 0, count: sliceSize), count: 4)
        let seen = SeenBytes(inputCount)
        var slots: [(input: Int, bytes: UnsafeRawBufferPointer)] = []
        var recorded: [Int] = []
        func flush() {
            let batch = slots.map { (input: $0.input, bytes: SeenBytes.Slot($0.bytes)) }
            let work: [@Sendable () -> Void] = batch.map { slot in { seen.store(slot.input, slot.bytes) } }
            let inputs = batch.map(\.input)
            accumulator.flushInBackground(alongside: work, then: { recorded += inputs })
            slots.removeAll()
        }
        for input in 0..<inputCount {
            let bytes = seededBytes(input % 5 == 0 ? 700 : sliceSize, seed: UInt64(input) &+ 99)
            let padded = bytes + [UInt8](repeating: 0, count: sliceSize - bytes.count)
            let coefficients = (0..<4).map { UInt16(truncatingIfNeeded: input &* 31_337 &+ $0 &* 7) }
            for output in 0..<4 {
                expected[output].withUnsafeMutableBytes { target in
                    padded.withUnsafeBytes { source in
                        GaloisField16.multiplyAdd(
                            into: target.baseAddress!, from: source.baseAddress!, count: sliceSize,
                            coefficient: coefficients[output])
                    }
                }
            }
            let slot = bytes.withUnsafeBytes { accumulator.add($0, coefficients: coefficients) }
            slots.append((input, accumulator.batched(slot)))
            if accumulator.isFull { flush() }
        }
        flush()
        accumulator.waitForBackgroundFlush()
        #expect(recorded == Array(0..<inputCount))
        for input in 0..<inputCount {
            let bytes = seededBytes(input % 5 == 0 ? 700 : sliceSize, seed: UInt64(input) &+ 99)
            #expect(
                seen.value(input) == bytes + [UInt8](repeating: 0, count: sliceSize - bytes.count), "input \(input)")
        }
        for output in 0..<4 {
            #expect(Array(accumulator.slice(output)) == expected[output], "output \(output)")
        }
    }

    @Test func flushRunsTheWorkAlongsideEachPieceOnce() throws {
        let accumulator = try Par2SliceAccumulator(count: 3, sliceSize: 1 << 16, jobs: 2, path: "test")
        let counts = Counts(8)
        [UInt8](repeating: 1, count: 1 << 16).withUnsafeBytes { _ = accumulator.add($0, coefficients: [1, 2, 3]) }
        accumulator.flush(alongside: (0..<8).map { index in { counts.bump(index) } })
        #expect(counts.values == [Int](repeating: 1, count: 8))
        // Every word is 0x0101, and 3·0x0101 = 0x0202 ^ 0x0101 in GF(2^16).
        #expect(accumulator.slice(2).allSatisfy { $0 == 3 })
    }
}

/// Per-piece counters bumped from several threads (each index by one piece only).
private final class Counts: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Int>
    private let count: Int
    init(_ count: Int) {
        self.count = count
        storage = .allocate(capacity: count)
        storage.initialize(repeating: 0, count: count)
    }
    deinit { storage.deallocate() }
    func bump(_ index: Int) { storage[index] += 1 }
    var values: [Int] { Array(UnsafeBufferPointer(start: storage, count: count)) }
}

/// What each background flush's work read from its batch, one input per slot.
private final class SeenBytes: @unchecked Sendable {
    struct Slot: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
    }
    private let storage: UnsafeMutablePointer<[UInt8]>
    private let count: Int
    init(_ count: Int) {
        self.count = count
        storage = .allocate(capacity: count)
        storage.initialize(repeating: [], count: count)
    }
    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }
    func store(_ input: Int, _ slot: Slot) { storage[input] = Array(slot.bytes) }
    func value(_ input: Int) -> [UInt8] { storage[input] }
}
