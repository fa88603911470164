import Testing

@testable import GCDCatCore

/// PAR2's MD5 (CMD5, whose state needs no allocation) against RFC 1321's vectors and against
/// OpenSSL's (the `Digester`) on random data, fed whole and in uneven pieces.
@Suite struct Par2MD5Tests {
    @Test func rfc1321Vectors() {
        let vectors = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (text, digest) in vectors { #expect(Par2Hash.md5(Array(text.utf8)).description == digest, "\(text)") }
    }

    @Test func matchesOpenSSLOnRandomData() throws {
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096, 65_537, 1 << 20] {
            let bytes = seededBytes(length, seed: UInt64(length) + 7)
            var digester = try Digester(.md5)
            digester.update(bytes)
            let expected = digester.finalize()
            #expect(Par2Hash.md5(bytes).description == expected, "length \(length) whole")
            let stream = MD5Stream()
            var start = 0
            var piece = 1
            while start < length {  // pieces of 1, 4, 9, … bytes cross every block boundary
                let end = min(length, start + piece * piece)
                bytes.withUnsafeBytes { stream.update(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
                start = end
                piece += 1
            }
            #expect(stream.finalize().description == expected, "length \(length) in pieces")
        }
    }
}
