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
    ///
    /// `listed` is the SFV beside the set, when there is one: a part written from the PAR2 (a
    /// missing or damaged one) must also have the crc32 its line gives, or the PAR2 set
    /// describes other contents (an older version's volumes beside a newer set) and nothing is
    /// written.
    func writeSet(
        _ list: Par2PartList, _ verification: Par2Verification, rebuilt: Par2Repairer.Rebuilt?,
        intactWritten: Bool, into sink: OutputSink, counter: TransferCounter, listed: ListedCRCs? = nil
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
            let dropped = list.droppedHeader(at: position)
            defer { outputOffset += file.length - dropped }
            if intactWritten && state != .missing {
                // The check's writes: one per stretch it read.
                let stretch = Int64(Par2Verifier.stretchBytes)
                chunks += (file.length + stretch - 1) / stretch
                if state == .ok { continue }
            }
            // The check counted the bytes it copied; a missing part's are new.
            let counts = !intactWritten || state == .missing
            // A part found whole under another name of the set is read from there.
            let sourcePath = verification.sourcePath(of: index)
            let part: OwnedDescriptor? = try sourcePath.map { try Syscall.openRegularFile($0).takeDescriptor() }
            let source = part.raw  // lent to the reads below, all done while `part` lives
            let whole = MD5Stream()
            var crc = Checksum(.crc32)
            try reader.forEachStretch(of: file, source: source, path: sourcePath ?? path, rebuilt: rebuilt) {
                offset, bytes in
                whole.update(bytes)
                crc.update(bytes)
                guard let (offset, bytes) = keptBytes(bytes, at: offset, dropping: dropped) else { return }
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
            if let listed, let (expected, line) = listed.crcs[splitPath(path).name], expected != crc.value {
                throw GCDCatError(
                    .checksumMismatch, path: path,
                    message:
                        "\(list.index.displayPath) rebuilds it with crc32 \(crc.hex), but \(listed.path.displayPath) "
                        + "line \(line) says \(hex8(expected)): the PAR2 set describes other contents than the SFV "
                        + "(another version's?), so nothing was written")
            }
        }
        return MergeResult(
            bytes: outputOffset, chunks: chunks,
            method: rebuilt == nil ? KernelCopier.Method.readWrite.rawValue : "par2 repair")
    }
}

extension Par2PartList {
    /// The bytes a merge leaves out at the start of the file at `position` in part order: the
    /// header that every part after the first repeats (gcdcat's record), or 0.
    func droppedHeader(at position: Int) -> Int64 { position > 0 ? set.header?.size ?? 0 : 0 }

    /// The merged output's length: every file's, less the headers left out.
    var outputLength: Int64 {
        order.enumerated().reduce(0) { $0 + set.files[$1.element].length - droppedHeader(at: $1.offset) }
    }
}

/// The part of `bytes`, at `offset` of a file whose first `dropped` bytes the output leaves out,
/// that the output takes, with its offset in the output's share of the file; nil for none.
func keptBytes(_ bytes: UnsafeRawBufferPointer, at offset: Int64, dropping dropped: Int64)
    -> (Int64, UnsafeRawBufferPointer)?
{
    guard dropped > 0 else { return (offset, bytes) }
    let skip = Int(max(0, min(Int64(bytes.count), dropped - offset)))
    guard skip < bytes.count else { return nil }
    return (offset + Int64(skip) - dropped, UnsafeRawBufferPointer(rebasing: bytes[skip...]))
}

/// The crc32 an SFV beside a PAR2-checked set gives each part, by the part's file name, with
/// its line.
struct ListedCRCs {
    var path: String
    var crcs: [String: (UInt32, Int)]

    /// The set's SFV (the first of its manifest candidates that is one), or nil when it has
    /// none or it cannot be read.
    init?(_ list: Par2PartList) {
        for candidate in list.naming.manifestCandidates where candidate.hasSuffix(".sfv") {
            guard let manifest = try? Manifest.load(candidate) else { continue }
            path = candidate
            crcs = Dictionary(
                manifest.entries.map { (splitPath($0.name).name, ($0.crc32, $0.line)) }, uniquingKeysWith: { a, _ in a }
            )
            return
        }
        return nil
    }
}
