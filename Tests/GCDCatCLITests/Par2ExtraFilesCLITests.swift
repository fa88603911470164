import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A Usenet release's `.par2` protects its parts and an `.nfo` beside them: the merge checks
/// and repairs the parts by it, rebuilds the `.nfo`'s blocks when a part needs them, and joins
/// only the parts (outside attack a23c F1: every such set was refused, intact or not, and the
/// refusal's advice, `gcdcat merge NAME.par2`, was refused in turn).
@Suite struct Par2ExtraFilesCLITests {
    static let parts = ["movie.mkv.001", "movie.mkv.002", "movie.mkv.003"]
    static let note =
        "gcdcat: note: movie.mkv.par2 also protects movie.nfo, which is no part of the set: it is checked, and "
        + "rebuilt if a part needs repair, but not joined\n"

    /// 250 000 bytes in three parts, an `.nfo` of 9 000, protected in 4 KiB blocks with 39 or 40
    /// recovery blocks (60% of 65; a part holds 25, the `.nfo` 3), by gcdcat or by `tool`.
    static func release(_ tool: Par2Tool? = nil, extra: String = "movie.nfo") throws -> (Scratch, Data, Data) {
        let scratch = try Scratch()
        let whole = randomData(250_000, seed: 640)
        let info = randomData(9000, seed: 641)
        for (number, name) in parts.enumerated() {
            try scratch.write(name, whole[(number * 100_000)..<min(250_000, (number + 1) * 100_000)])
        }
        try scratch.write(extra, info)
        let create =
            try tool.map {
                try $0.execute(
                    ["create", "-q", "-s4096", "-c40", "movie.mkv.par2"] + parts + [extra], in: scratch.path)
            }
            ?? gcdcat(
                ["protect"] + parts + [
                    extra, "-o", "movie.mkv.par2", "--par2-block-size", "4096", "--par2", "60", "-q",
                ],
                in: scratch.path)
        #expect(create.status == 0, "\(create.stderr)")
        return (scratch, whole, info)
    }

    @Test func intactPartsMergeCheckedAndTheExtraIsNotJoined() throws {
        let (scratch, whole, info) = try Self.release()
        let merged = try gcdcat(["movie.mkv.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.contains(Self.note), "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
        #expect(scratch.read("movie.nfo") == info)
    }

    /// A part lost and the `.nfo` lost too: 25 + 3 blocks from 40, the part rebuilt into the
    /// output; neither the part nor the `.nfo` is written back.
    @Test func aLostPartIsRebuiltWithTheExtrasBlocks() throws {
        let (scratch, whole, _) = try Self.release()
        try FileManager.default.removeItem(atPath: scratch.file("movie.mkv.002"))
        try FileManager.default.removeItem(atPath: scratch.file("movie.nfo"))
        let merged = try gcdcat(["movie.mkv.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr.contains("gcdcat: note: rebuilding movie.mkv.002 (missing, 25 blocks)"), "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
        #expect(scratch.read("movie.mkv.002") == nil && scratch.read("movie.nfo") == nil)
    }

    /// Intact parts merge whatever became of the `.nfo`.
    @Test(arguments: ["missing", "damaged", "a dangling link"])
    func anExtrasDamageIsNoMatterWhileThePartsAreIntact(state: String) throws {
        let (scratch, whole, info) = try Self.release()
        if state != "damaged" {
            try FileManager.default.removeItem(atPath: scratch.file("movie.nfo"))
            if state == "a dangling link" { #expect(symlink("nothere", scratch.file("movie.nfo")) == 0) }
        } else {
            try scratch.write("movie.nfo", Data(repeating: 0x41, count: 100) + info.dropFirst(100))
        }
        let merged = try gcdcat(["movie.mkv.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
        let said = state == "damaged" ? "damaged (1 block)" : "missing (3 blocks)"
        #expect(
            merged.stderr.contains(
                "gcdcat: note: movie.nfo, no part of the set, is \(said): no matter to the output\n"),
            "\(merged.stderr)")
    }

    /// Named by its `.par2`, whose first file by name is the extra (`a.nfo`), made by par2 or
    /// turbo; a part damaged.
    @Test(arguments: Par2Tool.allCases.filter(\.isInstalled))
    func namedByItsPar2WithTheExtraFirstByName(tool: Par2Tool) throws {
        let (scratch, whole, _) = try Self.release(tool, extra: "a.nfo")
        var damaged = whole[100_000..<200_000]
        damaged[150_000] ^= 0xFF
        try scratch.write("movie.mkv.002", damaged)
        let merged = try gcdcat(["movie.mkv.par2", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.contains("gcdcat: note: rebuilding movie.mkv.002 (damaged, 1 block)"), "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
        #expect(scratch.read("movie.mkv.002") == damaged, "the part is left as it was")
    }

    /// Every part overwritten whole matches no block: alone, that reads as another file's set,
    /// but the intact `.nfo` beside them shows it is theirs, so they are rebuilt (outside
    /// re-check r23c N3: refused, where turbo and `gcdcat repair` mend the set).
    @Test func anIntactExtraShowsTheSetIsThePartsOwn() throws {
        let scratch = try Scratch()
        let whole = randomData(8192, seed: 650)
        try scratch.write("movie.mkv.001", whole.prefix(4096))
        try scratch.write("movie.mkv.002", whole.suffix(4096))
        try scratch.write("movie.nfo", randomData(8192, seed: 651))
        let protect = try gcdcat(
            [
                "protect", "movie.mkv.001", "movie.mkv.002", "movie.nfo", "-o", "movie.mkv.par2", "--par2-block-size",
                "4096", "--par2", "100", "-q",
            ], in: scratch.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        try scratch.write("movie.mkv.001", randomData(4096, seed: 652))
        try scratch.write("movie.mkv.002", randomData(4096, seed: 653))
        let merged = try gcdcat(["movie.mkv.001", "-o", "out"], in: scratch.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(scratch.read("out") == whole)
    }

    /// The extra is read, so no output takes its name, `--force` or not.
    @Test func theOutputCannotBeTheExtra() throws {
        let (scratch, _, info) = try Self.release()
        let merged = try gcdcat(["movie.mkv.001", "-o", "movie.nfo", "--force"], in: scratch.path)
        #expect(merged.status != 0, "\(merged.stderr)")
        #expect(merged.stderr.contains("movie.nfo"), "\(merged.stderr)")
        #expect(scratch.read("movie.nfo") == info)
    }
}
