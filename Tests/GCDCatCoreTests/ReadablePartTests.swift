import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// The steps a merge shares between file and object parts, written once over ``ReadablePart``:
/// a part given again is refused with the same words for both, and a set that may be short is
/// warned of from the parts' sizes and names, whatever they are.
struct ReadablePartTests {
    @Test func aHardLinkToAnEarlierFilePartIsTheSamePart() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [3])
        let link = directory.file("link")
        #expect(Glibc.link(paths[0], link) == 0)
        var repeated = RepeatedParts<PartFile>(allowed: false)
        try repeated.admit(try PartFile.validate(paths[0]))
        let error = expectGCDCatError { try repeated.admit(try PartFile.validate(link)) }
        #expect(error?.code == .invalidInput)
        #expect(error?.path == link)
        #expect(
            error?.message
                == "is the same file as \(paths[0]), under another name (a hard link or symlink), earlier in the set "
                + "(use --allow-duplicates if you mean it)")
    }

    @Test func anObjectGivenTwiceIsRefusedUnlessAllowed() throws {
        let part = ObjectInfo(location: try #require(try ObjectLocation(parsing: "s3://b/set.001")), size: 5)
        var refusing = RepeatedParts<ObjectInfo>(allowed: false)
        try refusing.admit(part)
        let error = expectGCDCatError { try refusing.admit(part) }
        #expect(error?.path == "s3://b/set.001")
        #expect(
            error?.message
                == "is the same object as s3://b/set.001, given earlier (use --allow-duplicates if you mean it)")
        var allowing = RepeatedParts<ObjectInfo>(allowed: true)
        try allowing.admit(part)
        try allowing.admit(part)
    }

    @Test func anObjectsStoredCRCIsTheServersElseGCDCatsRecord() throws {
        let location = try #require(try ObjectLocation(parsing: "s3://b/set.001"))
        let recorded = RecordedChecksum.metadata(0x1234_5678)
        #expect(ObjectInfo(location: location, size: 1, crc32: 0xABCD, metadata: recorded).storedCRC32 == 0xABCD)
        #expect(ObjectInfo(location: location, size: 1, metadata: recorded).storedCRC32 == 0x1234_5678)
        #expect(ObjectInfo(location: location, size: 1).storedCRC32 == nil)
        #expect(PartFile(path: "f", size: 1, device: 1, inode: 1).storedCRC32 == nil)
    }

    @Test func equalSizedObjectPartsDrawTheTruncationWarningNamingTheLast() throws {
        let parts = try ["s3://b/set.001", "s3://b/set.002"].map {
            ObjectInfo(location: try #require(try ObjectLocation(parsing: $0)), size: 4)
        }
        #expect(
            MergeVerification.truncationWarning(parts) == [
                "the last part, s3://b/set.002, is exactly as large as the others: if the set had more parts, "
                    + "they are missing and the output is short. A manifest (NAME.sfv, see 'gcdcat split') would tell."
            ])
        var shorter = parts
        shorter[1].size = 3
        #expect(MergeVerification.truncationWarning(shorter).isEmpty)
    }
}
