import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

extension MergeOperation {
    /// Writes the set's files in part order into `sink` from its position.
    ///
    /// A part that verified OK is copied by the kernel (``KernelCopier``: a clone, or
    /// `copy_file_range`), when `settled` holds the parts as validated before the check: then,
    /// instead of hashing its bytes a second time, every part must be unchanged since (device,
    /// inode, size, mtime, ctime; as the SFV-checked `auto` merge does, docs/notes/cow.md). The
    /// other parts pass through memory: their rebuilt slices, and runs of their good slices read
    /// in large stretches (``Par2FileBytes``), each file's bytes checked against its MD5 as they
    /// pass. With `settled` nil (ctimes ahead of the clock) every part is hashed as it passes.
    /// A part changed since it was verified, or a wrong rebuild, fails the merge before the
    /// output is published. Memory: one read buffer (16 MiB), plus the rebuilt slices.
    func writeSet(
        _ list: Par2PartList, _ verification: Par2Verification, rebuilt: Par2Repairer.Rebuilt?,
        settled: [PartFile]?, into sink: OutputSink, counter: TransferCounter
    ) throws -> MergeResult {
        let fd = try sink.fd
        let positional = sink.allowsPositionalWrites
        var copier = KernelCopier(sliceSize: KernelCopyMerge.minimumSlice)
        defer { copier.release() }
        let reader = try Par2FileBytes(sliceSize: list.set.sliceSize, path: list.index)
        var outputOffset: Int64 = 0
        var chunks: Int64 = 0
        for (position, index) in list.order.enumerated() {
            let file = list.set.files[index]
            let path = list.paths[position]
            let state = verification.files[index].state
            let source: Int32? = state == .missing ? nil : try Syscall.open(path, O_RDONLY | O_CLOEXEC)
            defer { if let source { Glibc.close(source) } }
            if let source, state == .ok, settled != nil {
                chunks += try copier.copy(
                    from: source, inputPath: path, inputOffset: 0, count: file.length, to: fd, outputPath: sink.path,
                    outputOffset: positional ? outputOffset : nil, counter: counter)
            } else {
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
                    counter.add(bytes: Int64(bytes.count))
                }
                guard whole.finalize() == file.md5 else {
                    throw GCDCatError(
                        .checksumMismatch, path: path,
                        message:
                            "its bytes, as merged, do not have the MD5 \(list.index.displayPath) gives it (it changed "
                            + "after it was verified, or a rebuilt block is wrong); nothing was written")
                }
            }
            outputOffset += file.length
        }
        for part in settled ?? [] { try part.requireUnchangedSinceValidation() }
        return MergeResult(
            bytes: outputOffset, chunks: chunks, method: rebuilt == nil ? copier.slowestMethod.rawValue : "par2 repair",
            clonedBytes: copier.clonedBytes, copiedBytes: copier.copiedBytes)
    }
}
