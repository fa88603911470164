import CMD5
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

    /// The multi-buffer MD5 (``MD5Stream/update(_:with:)``, `gcdcat_md5_update_lanes`) on each
    /// kernel against one plain stream each: 1 to 11 streams (a group of eight and a partial
    /// one), of uneven lengths around every block boundary, fed in three rounds so that held
    /// partial blocks meet the lanes.
    @Test(arguments: [GCDCAT_MD5_KERNEL_SCALAR, GCDCAT_MD5_KERNEL_AVX2])
    func lanesMatchOneStreamEach(kernel: gcdcat_md5_kernel) throws {
        try #require(
            gcdcat_md5_kernel_supported(kernel) == 1,
            "this CPU cannot run \(String(cString: gcdcat_md5_kernel_name_of(kernel)))")
        let lengths = [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 4096, 65_543, (1 << 20) + 7]
        var generator = SplitMix64(seed: 77)
        for streams in 1...11 {
            var plain = (0..<streams).map { _ in gcdcat_md5_state() }
            var lanes = plain
            for index in 0..<streams {
                gcdcat_md5_init(&plain[index])
                gcdcat_md5_init(&lanes[index])
            }
            for round in 0..<3 {
                let pieces = (0..<streams).map { index in
                    seededBytes(
                        lengths[Int(generator.next() % UInt64(lengths.count))],
                        seed: UInt64(streams * 100 + round * 10 + index))
                }
                for index in 0..<streams {
                    pieces[index].withUnsafeBytes { gcdcat_md5_update(&plain[index], $0.baseAddress, $0.count) }
                }
                try updateLanes(kernel, &lanes, pieces)
            }
            for index in 0..<streams {
                var expected = [UInt8](repeating: 0, count: 16)
                var actual = expected
                gcdcat_md5_final(&plain[index], &expected)
                gcdcat_md5_final(&lanes[index], &actual)
                #expect(actual == expected, "\(streams) streams, stream \(index)")
            }
        }
    }

    private func updateLanes(_ kernel: gcdcat_md5_kernel, _ states: inout [gcdcat_md5_state], _ pieces: [[UInt8]])
        throws
    {
        let buffers = pieces.map { piece in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(piece.count, 1), alignment: 1)
            piece.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        let data: [UnsafeRawPointer?] = buffers.map { UnsafeRawPointer($0.baseAddress) }
        let lengths = pieces.map(\.count)
        let status = states.withUnsafeMutableBufferPointer { states in
            let pointers: [UnsafeMutablePointer<gcdcat_md5_state>?] = (0..<states.count).map {
                states.baseAddress! + $0
            }
            return gcdcat_md5_update_lanes_with(kernel, pointers, data, lengths, pointers.count)
        }
        #expect(status == 0)
    }

    /// The Swift face of the lanes: streams given pieces together digest as streams given them alone.
    @Test func streamsUpdatedTogetherDigestAsAlone() {
        let pieces = (0..<9).map { seededBytes(70_000 + $0 * 13, seed: UInt64($0) + 500) }
        let together = pieces.map { _ in MD5Stream() }
        let buffers = pieces.map { piece in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece.count, alignment: 1)
            piece.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return UnsafeRawBufferPointer(buffer)
        }
        defer { buffers.forEach { $0.deallocate() } }
        MD5Stream.update(together, with: buffers)
        for (stream, piece) in zip(together, pieces) { #expect(stream.finalize() == Par2Hash.md5(piece)) }
    }
}
