import GCDCatCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Bad input: a clear error naming the file, inputs untouched, nothing left behind.
@Suite struct SafetyTests {
    @Test(arguments: MergeStrategyKind.allCases)
    func aMissingPartIsNamedAndNothingIsWritten(strategy: MergeStrategyKind) {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [10, 10])
        let missing = directory.file("nope.003")
        let error = expectGCDCatError {
            _ = try merge(paths + [missing], into: directory.file("out"), strategy: strategy)
        }
        #expect(error?.description == "\(missing): open: No such file or directory")
        #expect(error?.code == .missingPart)
        #expect(directory.listing() == ["data.001", "data.002"])
    }

    @Test func aDirectoryIsNotAPart() {
        let directory = TemporaryDirectory()
        mkdir(directory.file("sub"), 0o755)
        let error = expectGCDCatError {
            _ = try merge([directory.file("sub")], into: directory.file("out"), strategy: .auto)
        }
        #expect(error?.description == "\(directory.file("sub")): Is a directory")
        #expect(!fileExists(directory.file("out")))
    }

    @Test func aFIFOIsNotAPart() {
        let directory = TemporaryDirectory()
        mkfifo(directory.file("fifo"), 0o600)
        let error = expectGCDCatError {
            _ = try merge([directory.file("fifo")], into: directory.file("out"), strategy: .stream)
        }
        #expect(error?.description == "\(directory.file("fifo")): not a regular file (a FIFO)")
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func theOutputMayNotBeAPart(strategy: MergeStrategyKind) {
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: [100, 100])
        // Through a symlink and a hard link too.
        symlink(paths[1], directory.file("link"))
        link(paths[0], directory.file("hard"))
        for output in [paths[1], directory.file("link"), directory.file("hard")] {
            let operation = MergeOperation(
                partPaths: paths, output: .path(output), strategy: strategy, overwrite: true)
            let error = expectGCDCatError { _ = try operation.run() }
            #expect(error?.code == .invalidInput)
            #expect(error?.description.contains("is the input file") == true)
        }
        #expect(readFile(paths[0]) == Array(whole[0..<100]))
        #expect(readFile(paths[1]) == Array(whole[100...]))
    }

    @Test func anExistingOutputNeedsForce() throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: [5, 5])
        let output = directory.file("out")
        writeFile(output, [9, 9, 9])
        let error = expectGCDCatError { _ = try merge(paths, into: output, strategy: .auto) }
        #expect(error?.description == "\(output): already exists (use --force to replace it)")
        #expect(readFile(output) == [9, 9, 9])
        let forced = MergeOperation(partPaths: paths, output: .path(output), overwrite: true)
        _ = try forced.run()
        #expect(readFile(output) == whole)
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func aFullDiskIsReportedAndTheDeviceStays(strategy: MergeStrategyKind) {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [70_000, 70_000])
        let error = expectGCDCatError { _ = try merge(paths, into: "/dev/full", strategy: strategy) }
        #expect(error?.errno == ENOSPC)
        #expect(error?.description.hasSuffix("No space left on device") == true)
        var info = stat()
        stat("/dev/full", &info)
        #expect(info.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func aMissingOutputFolderIsNamed() {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [5])
        let output = directory.file("no/such/out")
        let error = expectGCDCatError { _ = try merge(paths, into: output, strategy: .auto) }
        #expect(
            error?.description
                == "\(output): open: No such file or directory (its folder \(directory.file("no/such")) does not exist; "
                + "create it with mkdir -p, or name another output)")
    }

    @Test func duplicatePartsAreRefusedUnlessAllowed() throws {
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: [3])
        let twice = MergeOperation(partPaths: [paths[0], paths[0]], output: .path(directory.file("out")))
        let error = expectGCDCatError { _ = try twice.run() }
        #expect(error?.description.contains("is the same file as") == true)
        var allowed = twice
        allowed.allowDuplicates = true
        _ = try allowed.run()
        #expect(readFile(directory.file("out")) == whole + whole)
    }

    @Test func newFilesFollowTheUmask() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [3])
        let old = umask(0o027)
        defer { umask(old) }
        _ = try merge(paths, into: directory.file("out"), strategy: .stream)
        var info = stat()
        stat(directory.file("out"), &info)
        #expect(info.st_mode & 0o777 == 0o640)
    }

    @Test func aDiscardedOutputLeavesNoTemporaryFile() throws {
        let directory = TemporaryDirectory()
        let registry = CleanupRegistry()
        let file = try AtomicOutputFile(
            finalPath: directory.file("x"), overwrite: false, registry: registry, unnamed: false)
        #expect(registry.registeredPaths == [file.temporaryPath])
        #expect(directory.listing().count == 1)
        file.discard()
        #expect(directory.listing().isEmpty)
        #expect(registry.registeredPaths.isEmpty)
    }

    @Test func anInterruptionRemovesTemporaryFilesAndBlocksCommits() throws {
        let directory = TemporaryDirectory()
        let registry = CleanupRegistry()
        let file = try AtomicOutputFile(
            finalPath: directory.file("x"), overwrite: false, registry: registry, unnamed: false)
        #expect(registry.removeAll() == [file.temporaryPath])
        #expect(directory.listing().isEmpty)
        let error = expectGCDCatError { try file.commit(fsync: false) }
        #expect(error?.code == .interrupted)
        #expect(!fileExists(directory.file("x")))
    }

    @Test func commitDoesNotReplaceAFileThatAppearedMeanwhile() throws {
        let directory = TemporaryDirectory()
        let file = try AtomicOutputFile(finalPath: directory.file("x"), overwrite: false)
        writeFile(directory.file("x"), [1])
        let error = expectGCDCatError { try file.commit(fsync: true) }
        #expect(error?.code == .outputExists)
        #expect(readFile(directory.file("x")) == [1])
        #expect(directory.listing() == ["x"])
    }

    @Test(arguments: MergeStrategyKind.allCases)
    func aPartThatShrinksAfterValidationIsAnError(strategy: MergeStrategyKind) throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [50_000, 50_000])
        let operation = MergeOperation(partPaths: paths, output: .path(directory.file("out")), strategy: strategy)
        let parts = try operation.validatedParts()
        truncate(paths[1], 10)
        let error = expectGCDCatError {
            _ = try operation.run(MergeRequest(parts: parts), counter: TransferCounter())
        }
        #expect(error?.code == .inputChanged)
        #expect(error?.path == paths[1])
        #expect(!fileExists(directory.file("out")))
        #expect(directory.listing() == ["data.001", "data.002"])
    }
}
