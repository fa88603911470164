import Foundation
import GCDCatCore
import Testing

/// BLAKE2b of every length `b2sum -l` accepts, computed by CBlake2 (OpenSSL 3.0 has 512 bits
/// only), with coreutils' b2sum as the oracle.
@Suite struct BLAKE2bTests {
    static let sizes = [0, 1, 127, 128, 129, 1 << 20]

    /// `b2sum -l bits` of each file, in order.
    func b2sum(bits: Int, _ paths: [String]) throws -> [String] {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/b2sum")
        tool.arguments = ["-l", "\(bits)"] + paths
        let pipe = Pipe()
        tool.standardOutput = pipe
        try tool.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        return output.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/b2sum"), "needs coreutils' b2sum"))
    func everyLengthMatchesB2sumOverBlockBoundaries() throws {
        let directory = TemporaryDirectory()
        var paths: [String] = []
        var contents: [[UInt8]] = []
        for size in Self.sizes {
            let bytes = seededBytes(size, seed: UInt64(size) &+ 5)
            let path = directory.file("data-\(size)")
            writeFile(path, bytes)
            paths.append(path)
            contents.append(bytes)
        }
        for bits in stride(from: 8, through: 512, by: 8) {
            let algorithm = try #require(DigestAlgorithm.blake2b(bits: bits))
            let expected = try b2sum(bits: bits, paths)
            for (bytes, oracle) in zip(contents, expected) {
                var digester = try Digester(algorithm)
                // Uneven pieces, a full 128-byte block among them: the last block, full or not,
                // is the one compressed as final.
                var offset = 0
                var piece = 1
                while offset < bytes.count {
                    let end = min(bytes.count, offset + piece)
                    digester.update(bytes[offset..<end])
                    offset = end
                    piece = piece == 1 ? 127 : piece * 2 + 1
                }
                #expect(digester.finalize() == oracle, "BLAKE2b-\(bits) of \(bytes.count) bytes")
            }
        }
    }

    @Test func namesAndLengthsAreB2sums() {
        #expect(DigestAlgorithm.blake2b(bits: 512) == .blake2b)
        #expect(DigestAlgorithm.blake2b(bits: 256) == .blake2bBits(256))
        for bad in [0, 4, 12, 520, -8] { #expect(DigestAlgorithm.blake2b(bits: bad) == nil) }
        #expect(DigestAlgorithm(rawValue: "blake2b-256") == .blake2bBits(256))
        #expect(DigestAlgorithm(rawValue: "blake2b-512") == .blake2b)
        #expect(DigestAlgorithm(rawValue: "blake2b-7") == nil)
        #expect(HashAlgorithm(rawValue: "blake2b-8")?.hexLength == 2)
        #expect(HashAlgorithm.blake2bBits(256).tag == "BLAKE2b-256")
        #expect(HashAlgorithm(tag: "BLAKE2b-256") == .blake2bBits(256))
        #expect(HashAlgorithm(tag: "BLAKE2b-512") == .blake2b)
        #expect(HashAlgorithm(tag: "BLAKE2b-250") == nil)
    }

    @Test func reportsCarryTheLengthInTheName() throws {
        let encoded = try JSONEncoder().encode([HashAlgorithm.blake2bBits(160), .sha256])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["blake2b-160","sha256"]"#)
        #expect(try JSONDecoder().decode([HashAlgorithm].self, from: encoded) == [.blake2bBits(160), .sha256])
    }
}
