import Foundation
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 22 (scale): a listed file is opened with one `openat2` beneath the list's folder, and
/// only a name that `openat2` refuses (EXDEV), or every name where the kernel has none (ENOSYS),
/// is resolved with realpath(3). Each way gives the same verdicts, forced through
/// ``FaultInjection``.
@Suite(.serialized) struct ListFolderTests {
    typealias Rule = FaultInjection.Rule

    /// A folder `in` with a list of: a plain file, a file in a subfolder, links that stay
    /// inside (relative, through `..` and back, absolute, to a subfolder), links that lead out
    /// (relative, absolute, through a linked folder), a dangling link and a missing name.
    func linkedFolder(_ directory: TemporaryDirectory) throws -> (list: String, expected: [String]) {
        let inside = directory.file("in")
        mkdir(inside, 0o755)
        mkdir(inside + "/sub", 0o755)
        writeFile(directory.file("secret"), Array("123456789".utf8))
        writeFile(inside + "/plain", Array("123456789".utf8))
        writeFile(inside + "/sub/deep", Array("123456789".utf8))
        symlink("plain", inside + "/relative")
        symlink("../in/plain", inside + "/round-trip")
        symlink(inside + "/plain", inside + "/absolute")
        symlink("sub", inside + "/linked-sub")
        symlink("../secret", inside + "/out-relative")
        symlink(directory.file("secret"), inside + "/out-absolute")
        symlink(directory.path, inside + "/up")
        symlink("nowhere", inside + "/dangling")
        let names = [
            "plain", "sub/deep", "relative", "round-trip", "absolute", "linked-sub/deep", "out-relative",
            "out-absolute", "up/secret", "dangling", "gone",
        ]
        writeFile(inside + "/list.sfv", Array(names.map { "\($0) CBF43926\n" }.joined().utf8))
        let outside = "a symlink leads outside the manifest's folder, to \(directory.file("secret"))"
        let expected =
            names.prefix(6).map { "\($0): OK" } + names[6...8].map { "\($0): REJECTED (\(outside); not opened)" }
            + ["dangling: MISSING", "gone: MISSING"]
        return (inside + "/list.sfv", expected)
    }

    func verified(_ list: String, jobs: Int = 2) throws -> [String] {
        ChecksumListVerifier.verify(try ChecksumList.load(list), listPath: list, jobs: jobs).map(\.line)
    }

    @Test func linksInsideTheFolderAreFollowedAndLinksOutAreRejected() throws {
        let directory = TemporaryDirectory()
        let (list, expected) = try linkedFolder(directory)
        #expect(try verified(list) == expected)
    }

    // EXDEV: every name resolved with realpath(3); ENOSYS: an lstat each, as without openat2.
    @Test(arguments: [EXDEV, ENOSYS])
    func withoutOpenat2TheVerdictsAreTheSame(errno code: Int32) throws {
        let directory = TemporaryDirectory()
        let (list, expected) = try linkedFolder(directory)
        let (outcomes, fired) = try FaultInjection.withFaults(
            [Rule(.openat2, pathContains: directory.path, times: .max, .fail(code))]
        ) { try verified(list) }
        #expect(outcomes == expected)
        #expect(fired > 0)
    }

    // Any other failure of openat2 is the file's, named with the syscall.
    @Test func anOpenat2FailureMakesTheFileUnreadable() throws {
        let directory = TemporaryDirectory()
        let (list, _) = try linkedFolder(directory)
        let (outcomes, _) = try FaultInjection.withFaults(
            [Rule(.openat2, pathContains: "/in/plain", .fail(EACCES))]
        ) { try verified(list) }
        #expect(outcomes.first == "plain: UNREADABLE (\(directory.file("in/plain")): openat2: Permission denied)")
        #expect(outcomes.dropFirst().first == "sub/deep: OK")
    }

    // The pseudo-filesystem check is skipped only for a device already seen to be real: a
    // /proc file after a real one, on the same worker, is still refused.
    @Test func aProcFileAfterARealOneIsStillRefused() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("real"), Array("123456789".utf8))
        symlink("/proc/self/status", directory.file("status"))
        writeFile(directory.file("list.sfv"), Array("real CBF43926\nstatus 00000000\n".utf8))
        let list = try ChecksumList.load(directory.file("list.sfv"))
        let outcomes = ChecksumListVerifier.verify(
            list, listPath: directory.file("list.sfv"), jobs: 1, followLinksOutside: true)
        #expect(
            outcomes.map(\.line) == [
                "real: OK",
                "status: UNREADABLE (\(directory.file("status")): not a regular file (a procfs pseudo-file of unknown size))",
            ])
    }
}
