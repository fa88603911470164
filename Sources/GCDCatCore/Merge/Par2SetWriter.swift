import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

extension MergeOperation {
    /// Writes the set's files in part order into `sink` from its position: each slice from its
    /// part, or from `rebuilt` where it was bad. Every file's bytes are checked against its MD5
    /// as they pass, so a part changed since it was verified (or a wrong rebuild) fails the
    /// merge before the output is published. Memory: one slice buffer, plus the rebuilt slices.
    func writeSet(
        _ list: Par2PartList, _ verification: Par2Verification, rebuilt: Par2Repairer.Rebuilt?, into sink: OutputSink,
        counter: TransferCounter
    ) throws -> MergeResult {
        let fd = try sink.fd
        let sliceSize = list.set.sliceSize
        var buffer = [UInt8](repeating: 0, count: sliceSize)
        var bytes: Int64 = 0
        var chunks: Int64 = 0
        for (position, index) in list.order.enumerated() {
            let file = list.set.files[index]
            let path = list.paths[position]
            let source: Int32? =
                verification.files[index].state == .missing ? nil : try Syscall.open(path, O_RDONLY | O_CLOEXEC)
            defer { if let source { Glibc.close(source) } }
            let whole = MD5Stream()
            for local in file.slices.indices {
                let offset = Int64(local) * Int64(sliceSize)
                let want = Int(min(Int64(sliceSize), file.length - offset))
                if let slice = rebuilt?.bytes(ofSlice: file.firstSlice + local) {
                    buffer.withUnsafeMutableBytes { $0.copyMemory(from: slice) }
                } else if let source {
                    let got = try Par2Verifier.readSlice(source, path: path, offset: offset, count: want, into: &buffer)
                    guard got == want else {
                        throw GCDCatError(.inputChanged, path: path, message: "shrank after it was verified")
                    }
                }
                try buffer.withUnsafeBytes { raw in
                    whole.update(UnsafeRawBufferPointer(rebasing: raw[0..<want]))
                    try Syscall.writeAll(fd, from: raw.baseAddress!, count: want, path: sink.path)
                }
                bytes += Int64(want)
                chunks += 1
                counter.add(bytes: Int64(want))
            }
            guard whole.finalize() == file.md5 else {
                throw GCDCatError(
                    .checksumMismatch, path: path,
                    message:
                        "its bytes, as merged, do not have the MD5 \(list.index.displayPath) gives it (it changed "
                        + "after it was verified, or a rebuilt block is wrong); nothing was written")
            }
        }
        return MergeResult(bytes: bytes, chunks: chunks, method: rebuilt == nil ? "read/write" : "par2 repair")
    }
}
