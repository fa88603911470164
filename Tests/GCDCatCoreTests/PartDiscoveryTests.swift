import GCDCatCore
import Testing

@Suite struct PartDiscoveryTests {
    @Test func parsesNumberedNames() {
        let digits = NumberedName.readings(of: "dir/movie.zip.001").first
        #expect(digits == NumberedName(stem: "dir/movie.zip.", alphabet: .digits, width: 3, number: 1))
        #expect(digits?.wholeName == "dir/movie.zip")
        #expect(NumberedName.readings(of: "movie.zip.12x").allSatisfy { $0.alphabet == .letters })
        let name = NumberedName(stem: "m.", alphabet: .digits, width: 3, number: 1)
        #expect(name.with(number: 7).name == "m.007")
        #expect(name.with(number: 1000).name == "m.1000")
    }

    @Test func discoversTheWholeSetInNumericOrder() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [3, 4, 5])
        #expect(try PartDiscovery.discover(from: paths[0])?.parts == paths)
    }

    @Test func widensPastNineHundredNinetyNine() throws {
        let directory = TemporaryDirectory()
        let names = (1...1001).map {
            $0 < 1000 ? directory.file("w." + zeroPadded($0, width: 3)) : directory.file("w.\($0)")
        }
        for name in names { writeFile(name, [1]) }
        #expect(try PartDiscovery.discover(from: names[0])?.parts == names)
    }

    @Test func aGapNamesTheMissingPart() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [1, 1, 1, 1])
        removeTree(paths[2])
        let error = expectGCDCatError { _ = try PartDiscovery.discover(from: paths[0]) }
        #expect(error?.code == .missingPart)
        #expect(error?.path == directory.file("data.003"))
        #expect(error?.description.contains("the set has \(directory.file("data.004"))") == true)
    }

    @Test func aMissingFirstPartIsMissing() {
        let directory = TemporaryDirectory()
        let error = expectGCDCatError { _ = try PartDiscovery.discover(from: directory.file("x.001")) }
        #expect(error?.description == "\(directory.file("x.001")): open: No such file or directory")
    }

    @Test func argumentsResolveToTheSetAndItsName() throws {
        let directory = TemporaryDirectory()
        let (paths, _) = writeParts(in: directory, sizes: [2, 2])
        let resolved = try PartArguments.resolve([paths[0]])
        #expect(resolved.parts == paths)
        #expect(resolved.defaultOutput == directory.file("data"))
        let explicit = try PartArguments.resolve([paths[1], paths[0]], asGiven: true)
        #expect(explicit.parts == [paths[1], paths[0]])
    }
}
