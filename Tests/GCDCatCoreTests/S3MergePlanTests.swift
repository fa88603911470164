import GCDCatCore
import Testing

/// ServerSideMergePlan: every plan covers every byte once, in order, and keeps S3's part rules.
struct S3MergePlanTests {
    static let mib: UInt64 = 1 << 20
    static let minimum = MultipartSizing.minimumPartSize
    static let maximum = MultipartSizing.maximumPartSize

    /// Checks the plan against S3's rules and the sizes; returns it for more checks.
    @discardableResult
    func checked(_ sizes: [UInt64], copyable: [Bool] = []) throws -> ServerSideMergePlan {
        let plan = try ServerSideMergePlan.make(sizes: sizes, copyable: copyable)
        // Every byte of every source, once, in order.
        var next = (source: 0, offset: UInt64(0))
        func advance(_ slice: ServerSideMergePlan.Slice) {
            while next.source < sizes.count && next.offset == sizes[next.source] && next.source != slice.source {
                next = (next.source + 1, 0)
            }
            #expect(slice.source == next.source && slice.range.lowerBound == next.offset, "gap or overlap at \(slice)")
            next = (slice.source, slice.range.upperBound)
        }
        for part in plan.parts {
            switch part {
            case .copy(let slice): advance(slice)
            case .upload(let slices): slices.forEach(advance)
            }
        }
        #expect(UInt64(plan.parts.reduce(0) { $0 + $1.length }) == sizes.reduce(0, +))
        for (index, part) in plan.parts.enumerated() {
            #expect(part.length <= Self.maximum)
            #expect(part.length > 0)
            if index < plan.parts.count - 1 { #expect(part.length >= Self.minimum, "part \(index + 1) too small") }
        }
        #expect(plan.largestUpload < 15 * Self.mib)
        #expect(plan.parts.count <= MultipartSizing.maximumParts)
        return plan
    }

    /// A source that may not be copied (a key with '%', which RGW decodes twice) passes through
    /// the client in pieces, and the plan still keeps every rule.
    @Test(arguments: [
        [20 * mib, 20 * mib, 20 * mib], [3 * mib, 20 * mib + 1, 2 * mib], [20 * mib, 1, 6 * mib], [7 * mib],
    ])
    func aSourceThatMayNotBeCopiedIsUploaded(sizes: [UInt64]) throws {
        for uncopyable in sizes.indices {
            var copyable = [Bool](repeating: true, count: sizes.count)
            copyable[uncopyable] = false
            let plan = try checked(sizes, copyable: copyable)
            for case .copy(let slice) in plan.parts { #expect(slice.source != uncopyable) }
            #expect(plan.downloadedSources.contains(uncopyable))
        }
    }

    @Test func bigPartsAreAllCopiedAndNothingIsDownloaded() throws {
        let plan = try checked(Array(repeating: 16 * Self.mib, count: 16))
        #expect(plan.copyPartCount == 16)
        #expect(plan.downloadedBytes == 0)
        #expect(plan.downloadedSources.isEmpty)
    }

    @Test func emptyInputsGiveNoParts() throws {
        #expect(try checked([]).parts.isEmpty)
        #expect(try checked([0, 0, 0]).parts.isEmpty)
    }

    @Test func aLoneSmallPartIsCopiedAsTheLastPart() throws {
        #expect(try checked([1]).parts == [.copy(.init(source: 0, range: 0..<1))])
        #expect(try checked([0, 1, 0]).parts == [.copy(.init(source: 1, range: 0..<1))])
        #expect(try checked([Self.minimum - 1]).downloadedBytes == 0)
    }

    @Test func aSmallLastPartAfterACopyIsCopied() throws {
        let plan = try checked([Self.minimum, 1])
        #expect(
            plan.parts == [.copy(.init(source: 0, range: 0..<Self.minimum)), .copy(.init(source: 1, range: 0..<1))])
    }

    @Test func twoPartsJustUnderTheMinimumAreUploadedAsOne() throws {
        let size = Self.minimum - 1
        let plan = try checked([size, size])
        #expect(plan.parts == [.upload([.init(source: 0, range: 0..<size), .init(source: 1, range: 0..<size)])])
        #expect(plan.downloadedSources == [0, 1])
    }

    @Test func aSmallRunBorrowsTheHeadOfTheNextBigPart() throws {
        let plan = try checked([1, 16 * Self.mib])
        #expect(
            plan.parts == [
                .upload([.init(source: 0, range: 0..<1), .init(source: 1, range: 0..<(Self.minimum - 1))]),
                .copy(.init(source: 1, range: (Self.minimum - 1)..<(16 * Self.mib))),
            ])
        #expect(plan.downloadedBytes == Self.minimum)
    }

    @Test func aBigPartWhoseRestWouldBeSmallIsTakenWhole() throws {
        // 1 byte then exactly 5 MiB: borrowing leaves 1 byte to copy, which could not be a
        // non-final part, so the whole part is uploaded with the run.
        let plan = try checked([1, Self.minimum, Self.minimum])
        #expect(
            plan.parts.first == .upload([.init(source: 0, range: 0..<1), .init(source: 1, range: 0..<Self.minimum)]))
        #expect(plan.parts.last == .copy(.init(source: 2, range: 0..<Self.minimum)))
    }

    @Test func overFiveGiBIsCopiedInEvenRanges() throws {
        let plan = try checked([Self.maximum + 1])
        #expect(
            plan.parts == [
                .copy(.init(source: 0, range: 0..<(Self.maximum / 2 + 1))),
                .copy(.init(source: 0, range: (Self.maximum / 2 + 1)..<(Self.maximum + 1))),
            ])
        #expect(try checked([Self.maximum]).parts.count == 1)
        #expect(try checked([3 * Self.maximum + 7, 1, 2]).copyPartCount == 4)
    }

    @Test func mixesKeepTheRules() throws {
        try checked([1, 0, 1, 16 * Self.mib, 2, 3])
        try checked([Self.minimum - 1, 1, Self.minimum + 1, 0, 7 * Self.mib, Self.maximum + 1, 1])
        try checked(Array(repeating: 100_000, count: 500))
        try checked([16 * Self.mib, 1, 16 * Self.mib, 1, 16 * Self.mib])
    }

    @Test func randomSetsKeepTheRules() throws {
        var state: UInt64 = 42
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 17) % bound
        }
        let choices: [UInt64] = [
            0, 1, Self.minimum - 1, Self.minimum, Self.minimum + 1, 16 * Self.mib, Self.maximum + 1,
        ]
        for _ in 0..<300 {
            let count = Int(next(12))
            try checked((0..<count).map { _ in next(3) == 0 ? next(12 * Self.mib) : choices[Int(next(7))] })
        }
    }

    @Test func moreThanTenThousandPartsAreRefused() throws {
        #expect(try checked(Array(repeating: Self.minimum, count: 10_000)).parts.count == 10_000)
        #expect(throws: GCDCatError.self) {
            try ServerSideMergePlan.make(sizes: Array(repeating: Self.minimum, count: 10_001))
        }
        // Small parts join into uploads, so many of them fit.
        #expect(try checked(Array(repeating: 1 << 10, count: 20_000)).parts.count == 4)
    }

    @Test func partSizesGrowToStayUnderTenThousandParts() {
        #expect(MultipartSizing.partSize(total: 1 << 30, preferred: 16 << 20) == 16 << 20)
        #expect(MultipartSizing.partSize(total: 1 << 30, preferred: 1) == 5 << 20)
        let big: UInt64 = 1 << 40  // 1 TiB
        let size = MultipartSizing.partSize(total: big, preferred: 16 << 20)
        #expect((big + UInt64(size) - 1) / UInt64(size) <= 10_000)
        #expect(size % (1 << 20) == 0)
    }
}
