import Foundation
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// The output path underneath every command: unnamed files, the registry after an abort,
/// temporary names, non-blocking opens, and the manifest-versus-part rule.
@Suite struct RobustOutputTests {
    @Test func anUnnamedOutputHasNoNameUntilPublished() throws {
        let directory = TemporaryDirectory()
        let registry = CleanupRegistry()
        let file = try AtomicOutputFile(finalPath: directory.file("x"), overwrite: false, registry: registry)
        #expect(file.isUnnamed)
        _ = try Syscall.pwriteAll(file.fd, from: [UInt8]([1, 2, 3]), count: 3, offset: 0, path: "x")
        #expect(directory.listing().isEmpty)
        #expect(registry.registeredPaths.isEmpty)
        try file.commit(fsync: true)
        #expect(directory.listing() == ["x"])
        #expect(FileManager.default.contents(atPath: directory.file("x")) == Data([1, 2, 3]))
    }

    @Test func publishingNeverReplacesWithoutOverwrite() throws {
        let directory = TemporaryDirectory()
        let file = try AtomicOutputFile(finalPath: directory.file("x"), overwrite: false)
        writeFile(directory.file("x"), [9])
        let error = expectGCDCatError { try file.commit(fsync: false) }
        #expect(error?.code == .outputExists)
        #expect(FileManager.default.contents(atPath: directory.file("x")) == Data([9]))
        #expect(directory.listing() == ["x"])
    }

    @Test func overwriteReplacesThroughAShortNameAndLeavesNoOther() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("x"), [9, 9])
        let file = try AtomicOutputFile(finalPath: directory.file("x"), overwrite: true)
        _ = try Syscall.pwriteAll(file.fd, from: [UInt8]([7]), count: 1, offset: 0, path: "x")
        try file.commit(fsync: false)
        #expect(directory.listing() == ["x"])
        #expect(FileManager.default.contents(atPath: directory.file("x")) == Data([7]))
    }

    @Test func aDiscardedUnnamedOutputLeavesNothing() throws {
        let directory = TemporaryDirectory()
        let file = try AtomicOutputFile(finalPath: directory.file("x"), overwrite: false)
        file.discard()
        #expect(directory.listing().isEmpty)
    }

    /// An output dropped without finishing or discarding kept its descriptor (and so its
    /// unnamed file's blocks) open until the process ended.
    @Test func anOutputLetGoWithoutFinishingClosesItsDescriptor() throws {
        let directory = TemporaryDirectory()
        var number: Int32 = -1
        do {
            let file = try AtomicOutputFile(finalPath: directory.file("x"), overwrite: false)
            number = file.fd
            #expect(openedPath(ofDescriptor: number)?.hasPrefix(directory.path) == true)
        }
        #expect(openedPath(ofDescriptor: number)?.hasPrefix(directory.path) != true)
    }

    /// SIGINT during a split left `.p.NNN.gcdcat-*`: a file created after the sweep survived.
    @Test func theRegistryRefusesNewFilesOnceAnAbortBegan() throws {
        let directory = TemporaryDirectory()
        let registry = CleanupRegistry()
        registry.removeAll()
        for unnamed in [false, true] {
            let error = expectGCDCatError {
                _ = try AtomicOutputFile(
                    finalPath: directory.file("x"), overwrite: false, registry: registry, unnamed: unnamed)
            }
            #expect(error?.code == .interrupted)
        }
        #expect(directory.listing().isEmpty)
    }

    /// Issue 9 case 12: names of 241–255 bytes failed because the temporary name was too long.
    @Test(arguments: [1, 200, 240, 241, 255])
    func aTemporaryNameFitsIn255Bytes(length: Int) throws {
        let directory = TemporaryDirectory()
        let name = String(repeating: "\u{10FFE9}", count: length)  // escape scalars: one byte each
        let temporary = temporaryName(for: directory.file(name))
        let last = PathName.bytes(of: splitPath(temporary).name)
        #expect(last.count <= 255)
        #expect(last.starts(with: [UInt8(ascii: ".")] + [UInt8](repeating: 0xE9, count: min(length, 240))))
        let file = try AtomicOutputFile(
            finalPath: directory.file(name), overwrite: false, registry: CleanupRegistry(), unnamed: false)
        try file.commit(fsync: false)
        #expect(Syscall.unlink(directory.file(name)) == 0)
        #expect(directory.listing().isEmpty)
    }

    /// A part swapped for a FIFO after validation made `open` wait forever for a writer.
    @Test func aPartSwappedForAFIFOIsRefusedWithoutBlocking() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("p.001"), [1, 2, 3])
        let part = try PartFile.validate(directory.file("p.001"))
        #expect(Syscall.unlink(directory.file("p.001")) == 0)
        #expect(mkfifo(directory.file("p.001"), 0o644) == 0)
        let error = expectGCDCatError { _ = try part.open() }
        #expect(error?.description == "\(directory.file("p.001")): not a regular file (a FIFO)")
    }

    @Test func partNamesAreRecognisedForTheManifestRule() {
        let numeric = PartNaming(prefix: "out/m.")
        #expect(numeric.isPartName("out/m.001"))
        #expect(numeric.isPartName("./out//m.1000"))
        #expect(!numeric.isPartName("out/m.sfv"))
        #expect(!numeric.isPartName("out/m.01"))
        let alpha = PartNaming(prefix: "x", style: .alpha)
        #expect(alpha.isPartName("xab"))
        #expect(alpha.isPartName("xzaab"))
        #expect(!alpha.isPartName("x.sfv"))
        #expect(!PartNaming(prefix: "orig.", style: .alpha).isPartName("orig.sfv"))
        #expect(PartNaming(prefix: "orig.", style: .alpha, width: 3).isPartName("orig.sfv"))
    }

    @Test func aSplitRefusesTooManyPartsBeforePlanningThem() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("in"), seededBytes(200_001, seed: 1))
        let operation = SplitOperation(
            input: directory.file("in"), mode: .size(2), naming: PartNaming(prefix: directory.file("in.")))
        let error = expectGCDCatError { _ = try operation.run() }
        #expect(error?.message == "would make 100001 parts; at most 50000 are allowed (choose larger parts)")
        #expect(directory.listing() == ["in"])
    }

    /// Several sets merged one after another, interrupted: the message named a set that was
    /// published just as the interruption began as "not created" (2 of 18 runs), because the
    /// outputs were read before the sweep stopped further publishing, and a published output
    /// left the list only after its name appeared. Now an output leaves the list in the step
    /// that names it, and one given up after the interruption stays listed.
    @Test func onlyOutputsNeverPublishedAreSaidUncreatedAfterAnInterruption() throws {
        let directory = TemporaryDirectory()
        let registry = CleanupRegistry()
        let first = try AtomicOutputFile(finalPath: directory.file("a"), overwrite: false, registry: registry)
        let second = try AtomicOutputFile(finalPath: directory.file("b"), overwrite: true, registry: registry)
        #expect(registry.unpublishedOutputs == [directory.file("a"), directory.file("b")])
        try first.commit(fsync: false)
        #expect(registry.unpublishedOutputs == [directory.file("b")])
        _ = registry.removeAll(signal: SIGINT)
        // The interrupted set fails and gives its file up, as the signal makes it do.
        second.discard()
        #expect(registry.unpublishedOutputs == [directory.file("b")])
        #expect(directory.listing() == ["a"])
    }
}

/// The outside attack on PAR2 repair: in a folder that refused new files, the error named the
/// damaged file ("./a.bin: open: Permission denied"), which had opened fine; the folder is what
/// refused (`openat(dir, O_TMPFILE)` gave EACCES).
@Suite struct OutputCreationErrorTests {
    @Test func aFolderThatRefusesNewFilesIsNamedAsTheCulprit() {
        #expect(
            AtomicOutputFile.creationError("sets/a.bin", errno: EACCES).description
                == "sets: open: Permission denied: cannot create a.bin in this folder")
        #expect(
            AtomicOutputFile.creationError("sets/a.bin", errno: EROFS).description
                == "sets: open: Read-only file system: cannot create a.bin in this folder")
        #expect(
            AtomicOutputFile.creationError("sets/a.bin", errno: ENOSPC).description
                == "sets/a.bin: open: No space left on device")
    }
}
