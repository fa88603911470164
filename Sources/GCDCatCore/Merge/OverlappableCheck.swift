/// A check that reads a merge's parts and can run beside the copy (``MergeOperation``'s
/// `runOverlapped`), or before it where the output shows each byte at once.
protocol OverlappableCheck: Sendable {
    /// How the progress line names the check when it runs as a step of its own.
    var label: String { get }
    /// Bytes the output drops at the head of every part after the first, as the check knows them.
    var repeatedHeader: Int64 { get }
    /// Reads the parts and refuses those that fail; the result says what they passed and the
    /// crc32 the output must have.
    func run(jobs: Int, counter: TransferCounter?) throws -> MergeVerification
}

extension PartCRCCheck: OverlappableCheck {
    var label: String { "checking " + file.path.displayPath }
}

/// Every part of a marked set read against the crc32s its split recorded in their marks: a
/// merge's check when no list is in use (``MarkedContentCheck/runReadingAll(_:jobs:counter:)``).
struct MarkedPartsCheck: OverlappableCheck {
    var content: MarkedContentCheck
    /// The set's parts, in order, as the merge validated them.
    var parts: [PartFile]

    var label: String { "checking the parts against their marks" }
    /// Marks do not record a header: one an SFV beside the set gives is dropped unchecked.
    var repeatedHeader: Int64 { 0 }

    func run(jobs: Int, counter: TransferCounter?) throws -> MergeVerification {
        let joined = try content.runReadingAll(parts, jobs: jobs, counter: counter)
        return MergeVerification(
            manifestPath: nil, expectedCRC: joined.value, warnings: [], manifestFile: nil, verifiedByMarks: true)
    }
}
