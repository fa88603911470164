import GCDCatCore
import Testing

/// `gcdcat verify`'s one core entry: the lists in order, each one's end handed over, the
/// report failing what could not be checked, then the files no list names.
@Suite struct VerifyJobTests {
    /// md5 of "abc".
    let abc = "900150983cd24fb0d6963f7d28e17f72"

    func options(ignoreMissing: Bool = false) -> ListCheck.Options {
        ListCheck.Options(
            forced: nil, jobs: 2, ignoreMissing: ignoreMissing, followLinksOutside: false, trustServer: false,
            keepsFiles: false, showsProgress: false)
    }

    /// What `ended` received, one line a list: its name and how it ended.
    func ends(of job: VerifyJob, store: CountingObjectStore? = nil, stores: inout Int) throws -> (
        [String], VerifyReport
    ) {
        var ends: [String] = []
        var made = 0
        let report = try job.run(
            makeStore: {
                made += 1
                return store ?? CountingObjectStore(MemoryObjectStore())
            },
            notice: { _, _ in }, listed: { _ in },
            ended: { list, end in
                switch end {
                case .checked(let found): ends.append("\(list): checked, \(found.summary.files) files")
                case .interrupted: ends.append("\(list): interrupted")
                case .unusable(let error): ends.append("\(list): unusable, \(error.code)")
                }
            })
        stores = made
        return (ends, report)
    }

    @Test func eachListEndsInOrderAndTheFilesNoListNamesAreFound() throws {
        let folder = TemporaryDirectory()
        writeFile(folder.file("a.bin"), Array("abc".utf8))
        writeFile(folder.file("extra.bin"), Array("x".utf8))
        writeFile(folder.file("good.md5"), Array("\(abc)  a.bin\n".utf8))
        writeFile(folder.file("gone.md5"), Array("\(abc)  gone.bin\n".utf8))
        let lists = [folder.file("good.md5"), folder.file("absent.md5"), folder.file("gone.md5")]
        var stores = 0
        let (ends, report) = try ends(
            of: VerifyJob(lists: lists, options: options(ignoreMissing: true), unlisted: folder.path), stores: &stores)
        #expect(
            ends == [
                "\(lists[0]): checked, 1 files", "\(lists[1]): unusable, missingPart", "\(lists[2]): checked, 0 files",
            ])
        #expect(stores == 0)
        // The missing list is failed, and so is the one --ignore-missing left with no file verified.
        #expect(report.lists.map(\.exitStatus) == [0, 1, 1])
        #expect(report.lists[2].error?.message.hasSuffix("no file was verified") == true)
        #expect(report.exitStatus == 1)
        #expect(report.unlisted == [folder.file("extra.bin")])
    }

    @Test func everyListObjectIsReadThroughOneStore() throws {
        let list = try #require(try ObjectLocation(parsing: "s3://b/set/a.md5"))
        let other = try #require(try ObjectLocation(parsing: "s3://b/set/b.md5"))
        let file = try #require(try ObjectLocation(parsing: "s3://b/set/a.bin"))
        let store = CountingObjectStore(
            MemoryObjectStore(objects: [
                list: Array("\(abc)  a.bin\n".utf8), other: Array("\(abc)  a.bin\n".utf8), file: Array("abc".utf8),
            ]))
        var stores = 0
        let (ends, report) = try ends(
            of: VerifyJob(lists: ["s3://b/set/a.md5", "s3://b/set/b.md5"], options: options(), unlisted: nil),
            store: store, stores: &stores)
        #expect(ends == ["s3://b/set/a.md5: checked, 1 files", "s3://b/set/b.md5: checked, 1 files"])
        #expect(stores == 1)
        #expect(report.exitStatus == 0)
    }

    @Test func aFolderThatCannotBeListedFailsBeforeAnyList() throws {
        let folder = TemporaryDirectory()
        writeFile(folder.file("good.md5"), Array("\(abc)  a.bin\n".utf8))
        var ended = false
        #expect(throws: GCDCatError.self) {
            _ = try VerifyJob(
                lists: [folder.file("good.md5")], options: options(), unlisted: folder.file("no-such-folder")
            ).run(
                makeStore: { CountingObjectStore(MemoryObjectStore()) }, notice: { _, _ in }, listed: { _ in },
                ended: { _, _ in ended = true })
        }
        #expect(!ended)
    }
}
