import GCDCatCore
import Testing

@Suite struct PartDiscoveryTests {
    @Test func parsesNumberedNames() {
        #expect(
            PartDiscovery.numberedName("dir/movie.zip.001")
                == .init(base: "dir/movie.zip", number: 1, width: 3))
        #expect(PartDiscovery.numberedName("movie.zip") == nil)
        #expect(PartDiscovery.numberedName(".001") == nil)
        #expect(PartDiscovery.numberedName("a.12x") == nil)
        #expect(PartDiscovery.isFirstPart("a.000"))
        #expect(PartDiscovery.isFirstPart("a.001"))
        #expect(!PartDiscovery.isFirstPart("a.002"))
        let name = PartDiscovery.NumberedName(base: "m", number: 1, width: 3)
        #expect(name.name(for: 7) == "m.007")
        #expect(name.name(for: 1000) == "m.1000")
    }

    @Test func discoversTheWholeSetInNumericOrder() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [3, 4, 5])
        #expect(try PartDiscovery.discover(firstPart: paths[0]) == paths)
    }

    @Test func widensPastNineHundredNinetyNine() throws {
        let directory = TemporaryDirectory()
        let names = (1...1001).map {
            $0 < 1000 ? directory.file("w." + zeroPadded($0, width: 3)) : directory.file("w.\($0)")
        }
        for name in names { writeFile(name, [1]) }
        #expect(try PartDiscovery.discover(firstPart: names[0]) == names)
    }

    @Test func aGapNamesTheMissingPart() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [1, 1, 1, 1])
        removeTree(paths[2])
        let error = expectGCDCatError { _ = try PartDiscovery.discover(firstPart: paths[0]) }
        #expect(error?.code == .missingPart)
        #expect(error?.path == directory.file("data.003"))
        #expect(error?.description.contains("the set has \(directory.file("data.004"))") == true)
    }

    @Test func aMissingFirstPartIsMissing() {
        let directory = TemporaryDirectory()
        let error = expectGCDCatError { _ = try PartDiscovery.discover(firstPart: directory.file("x.001")) }
        #expect(error?.description == "\(directory.file("x.001")): open: No such file or directory")
    }

    @Test func argumentsResolveToTheSetAndItsName() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [2, 2])
        let resolved = try PartArguments.resolve([paths[0]])
        #expect(resolved.parts == paths)
        #expect(resolved.defaultOutput == directory.file("data"))
        let explicit = try PartArguments.resolve([paths[1], paths[0]])
        #expect(explicit.parts == [paths[1], paths[0]])
    }
}
