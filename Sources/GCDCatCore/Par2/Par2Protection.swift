/// `gcdcat protect`: recovery volumes added to files that already exist (a split set, any
/// files), with par2's defaults for what the caller leaves out.
public struct Par2Protection: Sendable {
    /// The files to protect, as given.
    public var files: [String]
    /// The index file (`-o`); nil for ``defaultIndexPath(files:)``.
    public var output: String?
    /// Recovery blocks per 100 source blocks (par2's `-r`), at least one block in all.
    public var percent: Int
    /// A multiple of 4; nil for par2's default, about 2000 blocks in all.
    public var blockSize: Int?
    /// par2's `-n`; nil for par2's choice.
    public var volumes: Int?
    /// par2's `-u` (needs `volumes`).
    public var uniform: Bool
    public var overwrite: Bool
    public var fsync: Bool
    public var jobs: Int

    public init(
        files: [String], output: String?, percent: Int, blockSize: Int?, volumes: Int?, uniform: Bool,
        overwrite: Bool, fsync: Bool, jobs: Int
    ) {
        self.files = files
        self.output = output
        self.percent = percent
        self.blockSize = blockSize
        self.volumes = volumes
        self.uniform = uniform
        self.overwrite = overwrite
        self.fsync = fsync
        self.jobs = jobs
    }

    /// `files`' common name without a trailing part number (and `.part`, and separators), plus
    /// `.par2`: `movie.zip.001` … give `movie.zip.par2`, one file `f` gives `f.par2`. Nil when
    /// the files share no name.
    public static func defaultIndexPath(files: [String]) -> String? {
        // Parts of a numbered set: the name a merge of them looks for (GNU split's `xaa` `xab`
        // give `x.par2`, never `xa.par2`).
        if let name = Par2PartList.indexName(forParts: files) { return name }
        var common = files.first ?? ""
        for file in files.dropFirst() {
            common = String(zip(common, file).prefix { $0 == $1 }.map(\.0))
        }
        var name = Substring(common)
        if files.count > 1 {
            while let last = name.last, last.isASCII && last.isNumber { name.removeLast() }
            if name.hasSuffix(".part") { name.removeLast(5) }
            while let last = name.last, ".-_".contains(last) { name.removeLast() }
        }
        guard !name.isEmpty, !name.hasSuffix("/") else { return nil }
        return name + ".par2"
    }

    /// The index's path: `output`, or the default.
    public var indexPath: String? { output ?? Self.defaultIndexPath(files: files) }

    /// The first input that one of the set's outputs would replace, with that output: an input
    /// at the index's name or at a volume name of the set (`NAME.volNN+MM.par2`, written or
    /// removed by a `--force`), or the same device and inode as an existing one (a hard link or
    /// symlink). Nil when none is; inputs that cannot be stat'ed are left to ``run()``.
    public func inputAmongOutputs() throws -> (input: String, output: String)? {
        guard let index = indexPath else { return nil }
        let (folder, name) = splitPath(index)
        let base = Par2RecoverySet.volumeBase(name)
        let existing = try Par2RecoverySet.filesAtSetNames(index: index).compactMap { path in
            try Syscall.statIfExists(path).map { (path: path, info: $0) }
        }
        for file in files {
            let (fileFolder, fileName) = splitPath(file)
            if fileFolder == folder,
                fileName == name
                    || (Par2RecoverySet.isVolumeName(fileName) && Par2RecoverySet.volumeBase(fileName) == base)
            {
                return (file, fileName == name ? index : file)
            }
            guard let info = try? Syscall.statIfExists(file) else { continue }
            if let output = existing.first(where: { $0.info.st_dev == info.st_dev && $0.info.st_ino == info.st_ino }) {
                return (file, output.path)
            }
        }
        return nil
    }

    /// The name the file at `path` takes in the set: its path relative to the index's folder
    /// (`sub/b.bin` for a file in a subfolder of it, as par2 create names it), or nil when it
    /// lies outside that folder. Folders are compared where they lead (`./sub`, a symlink into
    /// the folder); one that cannot be resolved (a file not there) is compared as spelt.
    public func setName(of path: String) -> String? {
        guard let index = indexPath else { return nil }
        let (folder, name) = splitPath(path)
        let top = splitPath(index).directory
        guard let realTop = Syscall.realPath(top), let real = Syscall.realPath(folder) else {
            return folder == top ? name : nil
        }
        guard ListFolder.lies(real, inside: realTop) else { return nil }
        guard real != realTop else { return name }
        return String(real.dropFirst(realTop == "/" ? 1 : realTop.count + 1)) + "/" + name
    }

    /// The files left out of PAR2's lists because they are empty (gcdcat's own packet names them).
    public func emptyFiles() throws -> [String] {
        try files.filter { try Par2Creator.fileSize($0) == 0 }
    }

    /// The block size, source blocks and recovery blocks for non-empty files of `fileSizes`:
    /// what ``run()`` makes, and what a usage check bounds before anything is read.
    public func blocks(fileSizes: [Int64]) -> (blockSize: Int, source: Int, recovery: Int) {
        Par2BlockCount.plan(fileSizes: fileSizes, blockSize: blockSize, percent: percent)
    }

    /// Reads every file once and writes the index and volumes (``Par2Creator/create(_:)``); empty
    /// files are left out (``emptyFiles()``).
    ///
    /// ## Errors
    /// `.invalidInput` when the files share no name and no `output` was given; those of
    /// ``Par2Creator/create(_:)``.
    public func run() throws -> Par2Creator.Result {
        guard let index = indexPath else {
            throw GCDCatError(.invalidInput, message: "the files share no name; name the set with -o NAME.par2")
        }
        // Empty files are left out, as par2 create leaves them out: par2cmdline calls an empty
        // file of a set damaged, and cannot repair it.
        // gcdcat's record in the set names them, so that a lost one is reported and recreated.
        let all = try files.map { (path: $0, size: try Par2Creator.fileSize($0)) }
        let sized = all.filter { $0.size > 0 }
        guard !sized.isEmpty else {
            throw GCDCatError(.invalidInput, path: files.first, message: "every file is empty: nothing to protect")
        }
        let name = { (path: String) in setName(of: path) ?? String(path.split(separator: "/").last ?? "") }
        let inputs = sized.map { (path: $0.path, name: name($0.path)) }
        let (size, _, recovery) = blocks(fileSizes: sized.map(\.size))
        // `-u` without `-n`: as many volumes as par2 makes, one per bit of the recovery block count.
        let layout: Par2VolumeLayout =
            uniform
            ? .uniform(files: volumes ?? Par2VolumeLayout.defaultFileCount(recoverySlices: recovery))
            : .variable(files: volumes)
        return try Par2Creator.create(
            .init(
                inputs: inputs, indexPath: index, sliceSize: size, recoverySlices: recovery, layout: layout,
                overwrite: overwrite, fsync: fsync, jobs: jobs,
                emptyFiles: all.filter { $0.size == 0 }.map { name($0.path) }))
    }
}
