import Foundation
import Testing

@testable import GCDCatCore

/// The merge command's one core entry: local and object parts, into files or objects, and
/// several sets, through ``MergeJob`` alone (no CLI).
struct MergeJobTests {
    /// A measure that runs the body once, without progress.
    static func measure(
        _ label: String, _ total: Int64, _ clock: ProcessClock, _ body: (TransferCounter) throws -> Void
    ) throws -> MergeJob.Measurement {
        try body(TransferCounter())
        return ((0, 0, 0), MemorySample())
    }

    static func job(_ parts: [String], output: String?, store: MemoryObjectStore) -> MergeJob {
        MergeJob(
            parts: PartSource(parts), output: output, manifest: nil, manifestPolicy: .automatic,
            makeStore: { CountingObjectStore(store) })
    }

    @Test func partsGivenAsObjectsAreAnObjectSource() {
        #expect(PartSource(["s3://b/x.001", "s3://b/x.002"]) == .objects(["s3://b/x.001", "s3://b/x.002"]))
        #expect(PartSource(["x.001"]) == .files(["x.001"]))
    }

    @Test func objectPartsAreMergedOnTheServerUnderTheSetsNameAndVerified() throws {
        let store = MemoryObjectStore()
        let set = S3MergeTests.storeSet(store, sizes: [3, 5, 2])
        var notices: [MergeOperation.Notice] = []
        let report = try #require(
            try Self.job(["s3://bkt/set.001"], output: nil, store: store).run(
                notice: { notices.append($0) }, measure: Self.measure))
        #expect(store.bytes(S3MergeTests.at("set")) == set.whole)
        #expect(report.strategy == "server-copy")
        #expect(report.verified == true)
        #expect(report.manifest == "s3://bkt/set.sfv")
        #expect(notices.contains(.verified(parts: 3, manifest: "s3://bkt/set.sfv")))
    }

    @Test func objectPartsAreDownloadedIntoAFolderUnderTheSetsName() throws {
        let store = MemoryObjectStore()
        let set = S3MergeTests.storeSet(store, sizes: [4, 1, 6])
        let directory = TemporaryDirectory()
        let report = try #require(
            try Self.job(["s3://bkt/set.001"], output: directory.path + "/", store: store).run(
                notice: { _ in }, measure: Self.measure))
        #expect(readFile(directory.file("set")) == set.whole)
        #expect(report.strategy == "ranged-get")
    }

    @Test func localPartsAreMergedUnderAnObjectFolder() throws {
        let store = MemoryObjectStore()
        let directory = TemporaryDirectory()
        let (paths, whole) = writeParts(in: directory, sizes: [7, 0, 9])
        let report = try #require(
            try Self.job([paths[0]], output: "s3://bkt/out/", store: store).run(
                notice: { _ in }, measure: Self.measure))
        #expect(store.bytes(S3MergeTests.at("out/data")) == whole)
        #expect(report.parts == 3)
        #expect(report.objectStore != nil)
    }

    /// Parts with no numbered name give no name to put in the folder `-o` names, local or
    /// object alike: the error names `-o`, and the fix is to name the output in full.
    @Test func aFolderOutputWithNoDerivableNameIsToldToNameTheOutputInFull() throws {
        let store = MemoryObjectStore()
        let directory = TemporaryDirectory()
        writeFile(directory.file("a"), [1, 2])
        writeFile(directory.file("b"), [3])
        store.store(S3MergeTests.at("a"), [1, 2])
        store.store(S3MergeTests.at("b"), [3])
        let cases: [(parts: [String], output: String, message: String)] = [
            ([directory.file("a"), directory.file("b")], directory.path + "/", "name the file in full"),
            ([directory.file("a"), directory.file("b")], "s3://bkt/out/", "name the object in full"),
            (["s3://bkt/a", "s3://bkt/b"], directory.path + "/", "name the file in full"),
            (["s3://bkt/a", "s3://bkt/b"], "s3://bkt/out/", "name the object in full"),
        ]
        for (parts, output, message) in cases {
            let error = #expect(throws: GCDCatError.self) {
                try Self.job(parts, output: output, store: store).run(notice: { _ in }, measure: Self.measure)
            }
            #expect(error?.code == .invalidInput)
            #expect(error?.path == output)
            #expect(error?.message == message)
        }
        let leftovers = try S3MergeTests.leftovers(store, keeping: ["a", "b"])
        #expect(leftovers.uploads == 0 && leftovers.keys.isEmpty)
        #expect(directory.listing() == ["a", "b"])
    }

    /// Without `-o`, parts with no numbered name are named as the ones no output can come from.
    @Test func noOutputAndNoDerivableNameNamesTheFirstPart() throws {
        let store = MemoryObjectStore()
        let directory = TemporaryDirectory()
        writeFile(directory.file("a"), [1, 2])
        writeFile(directory.file("b"), [3])
        store.store(S3MergeTests.at("a"), [1, 2])
        store.store(S3MergeTests.at("b"), [3])
        for parts in [[directory.file("a"), directory.file("b")], ["s3://bkt/a", "s3://bkt/b"]] {
            let error = #expect(throws: GCDCatError.self) {
                try Self.job(parts, output: nil, store: store).run(notice: { _ in }, measure: Self.measure)
            }
            #expect(error?.path == parts[0])
            #expect(error?.message == "cannot derive an output name from it; name the output with -o")
        }
    }

    /// One set merged from its objects and from files report alike: the report is built in one
    /// place for both merges.
    @Test func localAndObjectMergesOfOneSetReportAlike() throws {
        let store = MemoryObjectStore()
        let set = S3MergeTests.storeSet(store, sizes: [3, 5, 2])
        let directory = TemporaryDirectory()
        for name in ["set.001", "set.002", "set.003", "set.sfv"] {
            writeFile(directory.file(name), try #require(store.bytes(S3MergeTests.at(name))))
        }
        let object = try #require(
            try Self.job(["s3://bkt/set.001"], output: directory.file("from-objects"), store: store).run(
                notice: { _ in }, measure: Self.measure))
        let local = try #require(
            try Self.job([directory.file("set.001")], output: directory.file("from-files"), store: store).run(
                notice: { _ in }, measure: Self.measure))
        for report in [object, local] {
            #expect(report.operation == "merge")
            #expect(report.parts == 3)
            #expect(report.bytes == Int64(set.whole.count))
            #expect(report.verified)
        }
        #expect(object.manifest == "s3://bkt/set.sfv")
        #expect(local.manifest == directory.file("set.sfv"))
        #expect(object.inputs == ["s3://bkt/set.001", "s3://bkt/set.002", "s3://bkt/set.003"])
        #expect(local.inputs == ["set.001", "set.002", "set.003"].map(directory.file))
        #expect(object.output == directory.file("from-objects"))
        #expect(local.output == directory.file("from-files"))
        #expect(object.crc32 == hex8(S3MergeTests.crc(set.whole)))
        #expect(object.objectStore != nil && local.objectStore == nil)
        #expect(readFile(directory.file("from-objects")) == set.whole)
        #expect(readFile(directory.file("from-files")) == set.whole)
    }

    /// The same list's files as objects and on disk, in `directory`: what a checksum list given
    /// alone is tried on, both ways.
    static func storeBothWays(_ store: MemoryObjectStore, _ directory: TemporaryDirectory, _ files: [String: [UInt8]]) {
        for (name, bytes) in files {
            store.store(S3MergeTests.at(name), bytes)
            writeFile(directory.file(name), bytes)
        }
    }

    /// A checksum list given alone names its set by one set of rules, object or file: a file it
    /// lists that is no part (a README) is left out of the output, not joined to it.
    @Test func aListAloneLeavesOutTheFilesThatAreNoPartsForObjectsAsForFiles() throws {
        let store = MemoryObjectStore()
        let set = S3MergeTests.storeSet(store, sizes: [3, 5, 2])
        let directory = TemporaryDirectory()
        let readme = Array("read me\n".utf8)
        var list = String(decoding: try #require(store.bytes(S3MergeTests.at("set.sfv"))), as: UTF8.self)
        list += "README.txt \(hex8(S3MergeTests.crc(readme)).uppercased())\n"
        var files = ["README.txt": readme, "set.sfv": Array(list.utf8)]
        for name in ["set.001", "set.002", "set.003"] { files[name] = store.bytes(S3MergeTests.at(name)) }
        Self.storeBothWays(store, directory, files)
        var objectNotices: [MergeOperation.Notice] = []
        let object = try #require(
            try Self.job(["s3://bkt/set.sfv"], output: directory.file("from-objects"), store: store).run(
                notice: { objectNotices.append($0) }, measure: Self.measure))
        var localNotices: [MergeOperation.Notice] = []
        let local = try #require(
            try Self.job([directory.file("set.sfv")], output: directory.file("from-files"), store: store).run(
                notice: { localNotices.append($0) }, measure: Self.measure))
        for (notices, list) in [(objectNotices, "s3://bkt/set.sfv"), (localNotices, directory.file("set.sfv"))] {
            #expect(
                notices.contains(
                    .note(
                        "\(list) also lists README.txt, no part of the set; not checked here (gcdcat verify \(list) "
                            + "checks every file it lists)")), "\(notices)")
        }
        #expect(readFile(directory.file("from-objects")) == set.whole)
        #expect(readFile(directory.file("from-files")) == set.whole)
        #expect(object.inputs == ["s3://bkt/set.001", "s3://bkt/set.002", "s3://bkt/set.003"])
        #expect(local.inputs == ["set.001", "set.002", "set.003"].map(directory.file))
        #expect(object.verified && local.verified)
    }

    /// The SFV a split of an empty input writes (the empty whole recorded, no parts) merges back
    /// to the empty file from a bucket as from a folder: into an object under the set's name, or
    /// into a file, with the same note, verified, and nothing left on the server.
    @Test func anEmptyInputsSFVObjectMergesToTheEmptyOutput() throws {
        let store = MemoryObjectStore()
        let directory = TemporaryDirectory()
        Self.storeBothWays(store, directory, ["e.sfv": Array("; gcdcat-whole: 0 00000000 e\n".utf8)])
        store.store(S3MergeTests.at("other"), [1, 2, 3])
        for (parts, output) in [
            (["s3://bkt/e.sfv"], nil), (["s3://bkt/e.sfv"], directory.file("from-object")),
            ([directory.file("e.sfv")], directory.file("from-file")),
        ] {
            var notices: [MergeOperation.Notice] = []
            let report = try #require(
                try Self.job(parts, output: output, store: store).run(
                    notice: { notices.append($0) }, measure: Self.measure))
            #expect(
                notices == [
                    .note("\(parts[0]) records e as an empty file (0 bytes) and lists no parts: the output is empty")
                ])
            #expect(report.parts == 0 && report.bytes == 0 && report.verified)
            #expect(report.manifest == parts[0])
        }
        #expect(store.bytes(S3MergeTests.at("e")) == [])
        #expect(readFile(directory.file("from-object")) == [])
        #expect(readFile(directory.file("from-file")) == [])
        #expect(try S3MergeTests.leftovers(store, keeping: ["e.sfv", "e", "other"]) == (0, []))
        let again = #expect(throws: GCDCatError.self) {
            try Self.job(["s3://bkt/e.sfv"], output: "s3://bkt/other", store: store).run(
                notice: { _ in }, measure: Self.measure)
        }
        #expect(again?.code == .outputExists)
        #expect(store.bytes(S3MergeTests.at("other")) == [1, 2, 3])
    }

    /// A list given alone is read once: the GET that finds its set also gives the lines the
    /// parts are checked against (a set's list, and the empty input's list).
    @Test func aListGivenAloneIsFetchedOnce() throws {
        let memory = MemoryObjectStore()
        let set = S3MergeTests.storeSet(memory, sizes: [3, 5, 2])
        memory.store(S3MergeTests.at("e.sfv"), Array("; gcdcat-whole: 0 00000000 e\n".utf8))
        for (list, output, whole) in [("set.sfv", "set", set.whole), ("e.sfv", "e", [])] {
            let store = InstrumentedStore(memory)
            var job = Self.job(["s3://bkt/\(list)"], output: nil, store: memory)
            job.makeStore = { CountingObjectStore(store) }
            let report = try #require(try job.run(notice: { _ in }, measure: Self.measure))
            #expect(report.verified)
            #expect(memory.bytes(S3MergeTests.at(output)) == whole)
            #expect(store.gets.filter { $0.object == S3MergeTests.at(list) }.count == 1, "\(list)")
        }
    }

    /// A set's own list is found by one rule among files and objects: the first of `NAME.sfv`,
    /// `NAME.sha256`, `NAME.md5` that is there, whether the set is found from its first part
    /// (a listing) or given part by part (a HEAD of each name).
    @Test func aSetsOwnListIsFoundAlikeAmongFilesAndObjects() throws {
        let parts = ["set.001": Array("one".utf8), "set.002": Array("two".utf8)]
        let lists: [String: [UInt8]] = [
            "set.sfv": Array("set.001 00000000\n".utf8),
            "set.sha256": Array("\(String(repeating: "0", count: 64))  set.001\n".utf8),
            "set.md5": Array("\(String(repeating: "0", count: 32))  set.001\n".utf8),
        ]
        for (present, expected) in [
            (["set.sfv", "set.sha256", "set.md5"], "set.sfv"), (["set.sha256", "set.md5"], "set.sha256"),
            (["set.md5", "set.sfv"], "set.sfv"), (["set.md5"], "set.md5"), ([], nil),
        ] as [([String], String?)] {
            let store = MemoryObjectStore()
            let directory = TemporaryDirectory()
            Self.storeBothWays(store, directory, parts.merging(present.map { ($0, lists[$0]!) }) { $1 })
            let files = try PartArguments.resolve([directory.file("set.001")])
            let local = try MergeVerification.locate(
                explicit: nil, candidates: files.manifestCandidates, policy: .automatic,
                besideParts: try files.parts.map(PartFile.validate))
            #expect(local.manifest.map { splitPath($0.path).name } == expected, "\(present)")
            for given in [["s3://bkt/set.001"], ["s3://bkt/set.001", "s3://bkt/set.002"]] {
                let set = try ObjectDiscovery.resolve(given.map { try ObjectLocation(parsing: $0)! }, store: store)
                #expect(set.manifest?.location.key == expected, "\(present) \(given)")
            }
        }
    }

    /// A list alone that names two sets is refused with the same words for objects and files,
    /// naming the command that merges one of them.
    @Test func aListOfTwoSetsIsRefusedAlikeForObjectsAndFiles() throws {
        let store = MemoryObjectStore()
        let directory = TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        var list = ""
        for name in ["a.bin.001", "a.bin.002", "b.bin.001", "b.bin.002"] {
            let bytes = Array(name.utf8)
            files[name] = bytes
            list += "\(name) \(hex8(S3MergeTests.crc(bytes)).uppercased())\n"
        }
        files["all.sfv"] = Array(list.utf8)
        Self.storeBothWays(store, directory, files)
        let refusals = try [("s3://bkt", "s3://bkt/all.sfv"), (directory.path, directory.file("all.sfv"))].map {
            folder, list in
            let error = try #require(
                #expect(throws: GCDCatError.self) {
                    try Self.job([list], output: nil, store: store).run(notice: { _ in }, measure: Self.measure)
                })
            #expect(error.code == .invalidInput)
            #expect(error.path == list)
            return error.message.replacingOccurrences(of: folder + "/", with: "")
        }
        #expect(
            refusals[0]
                == "lists the parts of 2 sets (a.bin, b.bin); merge each from its first part, checked against its own "
                + "lines of this list: gcdcat merge a.bin.001 --manifest all.sfv")
        #expect(refusals[1] == refusals[0])
        #expect(try S3MergeTests.leftovers(store, keeping: Set(files.keys)) == (0, []))
    }

    @Test func severalSetsEachRunAndTheWorstStatusWins() throws {
        let store = MemoryObjectStore()
        let directory = TemporaryDirectory()
        let good = writeParts(in: directory, base: "a.bin", sizes: [4, 4, 2])
        let corrupt = writeParts(in: directory, base: "b.bin", sizes: [4, 4, 2], seed: 9)
        // Every part listed; the first with a crc32 it does not have.
        let lines = corrupt.paths.enumerated().map { index, path in
            let crc = index == 0 ? 0 : S3MergeTests.crc(readFile(path)!)
            return "b.bin.\(threeDigits(index + 1)) \(hex8(crc))\n"
        }
        writeFile(directory.file("b.bin.sfv"), Array(lines.joined().utf8))
        let job = Self.job([good.paths[0], corrupt.paths[0]], output: directory.path + "/", store: store)
        let groups = try job.sets()
        #expect(groups.count == 2)
        var ended: [Bool] = []
        let outcome = try job.mergeSets(groups, notice: { _ in }, measure: Self.measure) { result in
            if case .success = result { ended.append(true) } else { ended.append(false) }
        }
        #expect(ended == [true, false])
        #expect(outcome.report.exitStatus == 2)
        #expect(outcome.anyFailed)
        #expect(readFile(directory.file("a.bin")) == good.whole)
        #expect(!fileExists(directory.file("b.bin")))
        #expect(MergeJob.worse(2, 1) == 1 && MergeJob.worse(1, 2) == 1 && MergeJob.worse(0, 2) == 2)
    }

    /// A set that starts late (`m.bin.002`, no `.001`) is refused alike for objects and files:
    /// without a list, and with a list of its parts alone (made while the first was absent, it
    /// says no more of the start than the names do), whether found from `.002`, given as its
    /// list, or listed part by part. A list that records the whole file vouches for the start.
    @Test func aLateSetIsRefusedAlikeForObjectsAndFilesUnlessItsListRecordsTheWhole() throws {
        let parts = ["m.bin.002": Array("second".utf8), "m.bin.003": Array("third".utf8)]
        let lines = parts.keys.sorted().map { "\($0) \(hex8(S3MergeTests.crc(parts[$0]!)).uppercased())\n" }
        let joined = parts["m.bin.002"]! + parts["m.bin.003"]!
        let whole = "; gcdcat-whole: \(joined.count) \(hex8(S3MergeTests.crc(joined)).uppercased()) m.bin\n"
        for (list, vouches) in [(nil, false), (lines.joined(), false), (whole + lines.joined(), true)] {
            let store = MemoryObjectStore()
            let directory = TemporaryDirectory()
            Self.storeBothWays(
                store, directory, parts.merging(list.map { ["m.bin.sfv": Array($0.utf8)] } ?? [:]) { $1 })
            let forms = [["m.bin.002"], ["m.bin.002", "m.bin.003"]] + (list == nil ? [] : [["m.bin.sfv"]])
            for (form, given) in forms.enumerated() {
                // The refusal's message with the folder taken out; nil when it merged.
                func refusal(in folder: String) -> String? {
                    do {
                        _ = try Self.job(given.map { "\(folder)/\($0)" }, output: "\(folder)/out\(form)", store: store)
                            .run(notice: { _ in }, measure: Self.measure)
                        return nil
                    } catch {
                        let message = (error as? GCDCatError)?.message ?? "\(error)"
                        return message.replacingOccurrences(of: folder + "/", with: "")
                    }
                }
                let outcomes = [refusal(in: "s3://bkt"), refusal(in: directory.path)]
                let context = "\(given) with \(list == nil ? "no list" : vouches ? "a whole record" : "parts only")"
                if vouches {
                    #expect(outcomes == [nil, nil], "\(context)")
                    #expect(store.bytes(S3MergeTests.at("out\(form)")) == joined, "\(context)")
                    #expect(readFile(directory.file("out\(form)")) == joined, "\(context)")
                    continue
                }
                guard let objectRefusal = outcomes[0], let fileRefusal = outcomes[1] else {
                    Issue.record("\(context): merged")
                    continue
                }
                #expect(objectRefusal == fileRefusal, "\(context)")
                #expect(objectRefusal.hasPrefix("no m.bin.001 before it, "), "\(context): \(objectRefusal)")
                #expect(objectRefusal.contains("m.bin.sfv lists the set only from m.bin.002") == (list != nil))
                #expect(store.bytes(S3MergeTests.at("out\(form)")) == nil && !fileExists(directory.file("out\(form)")))
            }
        }
    }
}
