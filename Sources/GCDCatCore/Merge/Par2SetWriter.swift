import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

extension MergeOperation {
    /// Writes the set's files in part order into `sink` from its position.
    ///
    /// With `intactWritten`, the check already wrote every part it read at its place in the
    /// output, from the very bytes it hashed; the parts that verified OK are then left as they
    /// are. Every other part passes through memory: its rebuilt slices, and runs of its good
    /// slices read in large stretches (``Par2FileBytes``), each file's bytes checked against its
    /// MD5 as they are written. Nothing is copied unseen (the kernel's copies were: a write
    /// through a shared mapping between the check and the copy reached the output, exit 0). A
    /// part changed since it was verified, or a wrong rebuild, fails the merge before the output
    /// is published. Memory: one read buffer (16 MiB), plus the rebuilt slices.
    func writeSet(
        _ list: Par2PartList, _ verification: Par2Verification, rebuilt: Par2Repairer.Rebuilt?,
        intactWritten: Bool, into sink: OutputSink, counter: TransferCounter
    ) throws -> MergeResult {
        let fd = try sink.fd
        let positional = sink.allowsPositionalWrites
        let reader = try Par2FileBytes(sliceSize: list.set.sliceSize, path: list.index)
        var outputOffset: Int64 = 0
        var chunks: Int64 = 0
        for (position, index) in list.order.enumerated() {
            let file = list.set.files[index]
            let path = list.paths[position]
            let state = verification.files[index].state
            defer { outputOffset += file.length }
            if intactWritten && state != .missing {
                // The check's writes: one per stretch it read.
                let stretch = Int64(Par2Verifier.stretchBytes)
                chunks += (file.length + stretch - 1) / stretch
                if state == .ok { continue }
            }
            // The check counted the bytes it copied; a missing part's are new.
            let counts = !intactWritten || state == .missing
            let part: OwnedDescriptor? =
                state == .missing ? nil : OwnedDescriptor(adopting: try Syscall.openRegularFile(path).fd)
            let source = part.raw  // lent to the reads below, all done while `part` lives
            let whole = MD5Stream()
            try reader.forEachStretch(of: file, source: source, path: path, rebuilt: rebuilt) { offset, bytes in
                whole.update(bytes)
                if positional {
                    try Syscall.pwriteAll(
                        fd, from: bytes.baseAddress!, count: bytes.count, offset: outputOffset + offset,
                        path: sink.path)
                } else {
                    try Syscall.writeAll(fd, from: bytes.baseAddress!, count: bytes.count, path: sink.path)
                }
                chunks += 1
                if counts { counter.add(bytes: Int64(bytes.count)) }
            }
            guard whole.finalize() == file.md5 else {
                let rebuiltSlices = Set(rebuilt?.slices ?? [])
                throw try Par2Repairer.changedInput(verification, skipping: rebuiltSlices)
                    ?? GCDCatError(
                        .checksumMismatch, path: path,
                        message:
                            "its bytes, as merged, do not have the MD5 \(list.index.displayPath) gives it (it changed "
                            + "after it was verified, or a rebuilt block is wrong); nothing was written")
            }
        }
        return MergeResult(
            bytes: outputOffset, chunks: chunks,
            method: rebuilt == nil ? KernelCopier.Method.readWrite.rawValue : "par2 repair")
    }
}
