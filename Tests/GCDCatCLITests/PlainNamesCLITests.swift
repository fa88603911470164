import Foundation
import Testing

/// Files whose names hold digits or letters that are no part number: a year, a version, an
/// extension (outside re-check a18 C). Alone, each is merged alone, as `report1.txt` is; listed
/// in full, they are joined in the order given, as `cat` would; and no message names a file no
/// splitter makes (`no report2024.aaa before it`, `no 0001.csv before it`). Sets that lost their
/// first part are still refused.
@Suite struct PlainNamesCLITests {
    @Test(arguments: [
        "report2024.txt", "ubuntu-24.04.iso", "mysql-8.0.36.tar.gz", "x01.iso", "report01.tar.gz", "ab01.pdf",
        "backup.tar.gz", "python3.12.tar.xz",
    ])
    func aLoneFileIsMergedAlone(name: String) throws {
        let scratch = try Scratch()
        let data = randomData(3000, seed: 1901)
        try scratch.write(name, data)
        let result = try gcdcat([name, "-o", "out"], in: scratch.path)
        #expect(result.status == 0, "\(name): \(result.stderr)")
        #expect(result.stderr == "", "\(name)")
        #expect(scratch.read("out") == data, "\(name)")
        // No output name is made up from it (`report.txt`, `ubuntu-24.iso`: outside check a20 F4).
        let unnamed = try gcdcat([name], in: scratch.path)
        #expect(unnamed.status == 1)
        #expect(unnamed.stderr == "gcdcat: \(name): cannot derive an output name from it; name the output with -o\n")
    }

    /// Files named by year or version beside more of their kind: a typed list of some of them is
    /// joined as typed, into the output named. `report2025.txt` beside was a part the list left
    /// out, `report2023.txt` a part missing between 2022 and 2024, and without `-o` the output
    /// was a made-up `report.txt` (outside checks a19 #9, a20 F6). Padded numbers are still a
    /// set's (`ch01.txt ch03.txt`: `ch02.txt` is missing).
    @Test func aListOfYearsIsJoinedAsTypedBesideOtherYears() throws {
        let scratch = try Scratch()
        var contents: [String: Data] = [:]
        for (index, name) in [
            "report2022.txt", "report2023.txt", "report2024.txt", "report2025.txt", "ch01.txt", "ch03.txt",
        ]
        .enumerated() {
            contents[name] = randomData(100, seed: 4301 + UInt64(index))
            try scratch.write(name, contents[name]!)
        }
        for list in [
            ["report2023.txt", "report2024.txt"], ["report2022.txt", "report2024.txt"],
            ["report2024.txt", "report2022.txt"],
        ] {
            try? FileManager.default.removeItem(atPath: scratch.file("out"))
            let result = try gcdcat(["merge"] + list + ["-o", "out"], in: scratch.path)
            #expect(result.status == 0, "\(list): \(result.stderr)")
            #expect(result.stderr == "", "\(list)")
            #expect(scratch.read("out") == list.map { contents[$0]! }.reduce(Data(), +), "\(list)")
        }
        let unnamed = try gcdcat(["merge", "report2023.txt", "report2024.txt"], in: scratch.path)
        #expect(unnamed.status == 1)
        #expect(
            unnamed.stderr == "gcdcat: report2023.txt: cannot derive an output name from it; name the output with -o\n")
        #expect(scratch.read("report.txt") == nil)
        let gap = try gcdcat(["merge", "ch01.txt", "ch03.txt", "-o", "gap"], in: scratch.path)
        #expect(gap.status == 1)
        #expect(
            gap.stderr.hasPrefix("gcdcat: ch02.txt: missing from the list between ch01.txt and ch03.txt"),
            "\(gap.stderr)")
    }

    /// Lists typed in full, among each other in one folder: joined in the order given.
    @Test(arguments: [
        ["2023.csv", "2024.csv"], ["2024.csv", "2023.csv"], ["report2023.txt", "report2024.txt"],
        ["jan.log", "feb.log"], ["header.csv", "data2024.csv"],
    ])
    func aListOfPlainFilesIsJoinedAsGiven(list: [String]) throws {
        let scratch = try Scratch()
        var contents: [String: Data] = [:]
        let names = ["2023.csv", "2024.csv", "report2023.txt", "report2024.txt", "jan.log", "feb.log", "header.csv"]
        for (index, name) in (names + ["data2024.csv"]).enumerated() {
            contents[name] = randomData(1000 + 100 * index, seed: 1902 + UInt64(index))
            try scratch.write(name, contents[name]!)
        }
        let result = try gcdcat(["merge"] + list + ["-o", "out"], in: scratch.path)
        #expect(result.status == 0, "\(list): \(result.stderr)")
        #expect(result.stderr == "", "\(list)")
        #expect(scratch.read("out") == list.map { contents[$0]! }.reduce(Data(), +), "\(list)")
    }

    /// Digits before an extension that a neighbour confirms are still a set: one that starts
    /// zero-padded above its first number has lost its first part, and the message names that
    /// set's part (`out_00.txt`, not `out_02.aaa`); a later number is not the first part.
    @Test func aSetNumberedBeforeItsExtensionIsStillHeldToItsStart() throws {
        let scratch = try Scratch()
        try scratch.write("out_02.txt", randomData(1000, seed: 1910))
        try scratch.write("out_03.txt", randomData(500, seed: 1911))
        let found = try gcdcat(["out_02.txt", "-o", "out"], in: scratch.path)
        #expect(found.status == 1)
        #expect(
            found.stderr
                == "gcdcat: out_02.txt: no out_00.txt before it, so the set's first part may be missing. If the set "
                + "really starts here (split --start), merge it with its manifest, or list its parts with --as-given\n")
        let listed = try gcdcat(["merge", "out_02.txt", "out_03.txt", "-o", "out"], in: scratch.path)
        #expect(listed.status == 1)
        #expect(
            listed.stderr
                == "gcdcat: out_02.txt: no out_00.txt before it, so the set's first part may be missing. If the set "
                + "really starts here (split --start), merge it with its manifest, or give --as-given to join the "
                + "list as it is\n")
        #expect(scratch.read("out") == nil)
        try scratch.write("report2023.txt", randomData(1000, seed: 1912))
        try scratch.write("report2024.txt", randomData(900, seed: 1913))
        let later = try gcdcat(["report2024.txt", "-o", "out"], in: scratch.path)
        #expect(later.status == 1)
        #expect(
            later.stderr
                == "gcdcat: report2024.txt: not the first part of its set, which starts at report2023.txt as far as "
                + "lies here, with no report0001.txt before it, so the set's first part may be missing. If the set "
                + "really starts there (split --start), merge it with its manifest; if these are separate files, "
                + "merge the ones you mean by name with -o\n")
        #expect(scratch.read("out") == nil)
    }
}
