import Foundation
import Testing

@testable import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// A full disk says how much the output needs and how much its filesystem has free.
@Suite struct FullDiskMessageTests {
    typealias Rule = FaultInjection.Rule

    @Test(arguments: [FaultInjection.Call.fallocate, .copyFileRange, .pwrite])
    func aFullDiskSaysWhatIsNeededAndWhatIsFree(call: FaultInjection.Call) throws {
        let directory = TemporaryDirectory()
        let paths = (1...2).map { directory.file("p.00\($0)") }
        for path in paths { writeFile(path, seededBytes(5000, seed: 4)) }
        let operation = MergeOperation(
            partPaths: paths, output: .path(directory.file("out")),
            strategy: call == .pwrite ? .offsets : .auto)
        var thrown: GCDCatError?
        _ = FaultInjection.withFaults([Rule(call, pathContains: directory.path, .fail(ENOSPC))]) {
            do { _ = try operation.run() } catch let error as GCDCatError { thrown = error } catch {}
        }
        let error = try #require(thrown)
        #expect(error.errno == ENOSPC)
        #expect(error.path == directory.file("out"))
        // "No space left on device: 9.77 KiB (10000 bytes) needed, 1.23 GiB (…) available on its filesystem"
        #expect(error.message.hasPrefix("No space left on device: 9.77 KiB (10000 bytes) needed, "), "\(error)")
        #expect(error.message.hasSuffix(" bytes) available on its filesystem"), "\(error)")
        #expect(directory.listing() == ["p.001", "p.002"])
    }
}
