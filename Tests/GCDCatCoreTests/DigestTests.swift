import Foundation
import GCDCatCore
import Testing

@Suite struct DigestTests {
    @Test(
        arguments: [
            (DigestAlgorithm.md5, "900150983cd24fb0d6963f7d28e17f72"),
            (.sha1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                .sha512,
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
            ),
        ])
    func knownValuesOfABC(algorithm: DigestAlgorithm, expected: String) throws {
        var digester = try Digester(algorithm)
        digester.update(Array("abc".utf8))
        #expect(digester.finalize() == expected)
        #expect(DigestAlgorithm(hexLength: expected.count) == algorithm)
    }

    /// coreutils' md5sum … sha512sum and b2sum, and rhash for SHA3, are the oracle, over lengths
    /// around block boundaries.
    @Test(arguments: DigestAlgorithm.allCases)
    func matchesCoreutilsInPiecesOfAnySize(algorithm: DigestAlgorithm) throws {
        let directory = TemporaryDirectory()
        for length in [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 1_000_003] {
            let bytes = seededBytes(length, seed: UInt64(length) &+ 11)
            let path = directory.file("data-\(length)")
            writeFile(path, bytes)
            let tool = Process()
            switch algorithm {
            case .blake2b:
                tool.executableURL = URL(fileURLWithPath: "/usr/bin/b2sum")
                tool.arguments = [path]
            case .sha3Bits224, .sha3Bits256, .sha3Bits384, .sha3Bits512:
                tool.executableURL = URL(fileURLWithPath: "/usr/bin/rhash")
                tool.arguments = ["--\(algorithm.rawValue)", path]
            default:
                tool.executableURL = URL(fileURLWithPath: "/usr/bin/\(algorithm.rawValue)sum")
                tool.arguments = [path]
            }
            let pipe = Pipe()
            tool.standardOutput = pipe
            try tool.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            tool.waitUntilExit()
            let expected = String(output.prefix { $0 != " " })
            var digester = try Digester(algorithm)
            // Uneven pieces: a digest must not depend on how the bytes arrive.
            var offset = 0
            var piece = 1
            while offset < bytes.count {
                let end = min(bytes.count, offset + piece)
                digester.update(bytes[offset..<end])
                offset = end
                piece = piece * 3 + 1
            }
            #expect(digester.finalize() == expected, "\(algorithm) of \(length) bytes")
        }
    }
}
