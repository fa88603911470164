import CSystemShim
import GCDCatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// GNU split's `--filter=COMMAND`: each part goes to the standard input of its own
/// `$SHELL -c COMMAND` (`/bin/sh` when SHELL is unset) instead of a file, with the part's name in
/// the environment as `$FILE`. The command writes where it likes, so gcdcat names no file and
/// writes no manifest.
///
/// Parts run one after another, in order: a file's parts by any mode, standard input's by size
/// or lines as it arrives (by the other modes once held in a temporary file); round-robin's run
/// side by side, as the lines are dealt. A command that stops reading early (`head`) ends its
/// part without an error, as in GNU split; a command that fails (a non-zero exit, a signal
/// other than SIGPIPE) stops the split with an error naming the part.
public struct SplitFilter: Sendable {
    public var command: String

    public init(command: String) {
        self.command = command
    }

    /// Runs `command` once per part of `operation` (a file, by any mode but round-robin),
    /// calling `starting` with each part's name first; returns the names.
    ///
    /// ## Errors
    /// Those of ``SplitOperation/plan()``; `.io` when the command cannot be started or fails.
    public func run(
        _ operation: SplitOperation, counter: TransferCounter = TransferCounter(), starting: (String) -> Void = { _ in }
    ) throws -> [String] {
        if case .roundRobin(let count) = operation.mode {
            let opened = try PartFile.openValidated(operation.input)
            return try runRoundRobin(
                operation, count: count, from: opened.descriptor.raw, path: operation.input, counter: counter,
                starting: starting)
        }
        let (_, pieces, _) = try operation.plan()
        try operation.naming.requireCapacity(pieces.count)
        let names = try (0..<pieces.count).map { try operation.naming.name(at: $0) }
        let buffer = try Syscall.allocate(byteCount: 1 << 20, alignment: 4096, path: operation.input)
        defer { free(buffer) }
        for (name, sources) in zip(names, pieces) {
            starting(name)
            try feed(as: name) { input in
                try holdingSIGPIPE { try copy(sources, into: input, name: name, buffer: buffer, counter: counter) }
            }
        }
        return names
    }

    /// Standard input (or another stream at `fd`), cut by bytes (`--size`) or lines (`--lines`)
    /// as it arrives, as `tar c . | split - out_ -b 1M --filter='gzip > $FILE.gz'` does: a part's
    /// command starts with the part's first byte, so an empty input runs none. Returns the names.
    ///
    /// ## Errors
    /// `.invalidInput` for another mode; `.io` when a read fails, or a command cannot be started
    /// or fails.
    public func runStreaming(
        _ operation: SplitOperation, from fd: Int32, path: String, counter: TransferCounter = TransferCounter(),
        starting: (String) -> Void = { _ in }
    ) throws -> [String] {
        let limit: Int64
        let separator: UInt8?
        switch operation.mode {
        case .size(let size): (limit, separator) = (size, nil)
        case .lineCount(let lines, headerLines: 0): (limit, separator) = (Int64(lines), operation.separator)
        default:
            throw GCDCatError(
                .invalidInput, path: path,
                message: "--filter cuts a stream by --size or --lines only; the other modes need its length")
        }
        var stream = try StreamWindow(fd: fd, path: path, capacity: 1 << 20)
        var names: [String] = []
        try holdingSIGPIPE {
            // A part's command starts with the part's first byte: an empty input runs none.
            while try stream.refill() {
                let name = try operation.naming.name(at: names.count)
                names.append(name)
                starting(name)
                try feed(as: name) { input in
                    var left = limit
                    var open = true
                    while left > 0, try stream.refill() {
                        let take: Int
                        if let separator {
                            let (length, found) = SeparatorScan.prefix(
                                of: stream.available, endingAfter: Int(clamping: left), separator: separator)
                            (take, left) = (length, left - Int64(found))
                        } else {
                            take = min(stream.available.count, Int(clamping: left))
                            left -= Int64(take)
                        }
                        // A command that stopped reading (`head`) ends its part; its bytes are passed over.
                        if open { open = try write(stream.available.baseAddress!, count: take, to: input, name: name) }
                        counter.add(bytes: Int64(take), chunks: 1)
                        stream.consume(take)
                    }
                }
            }
        }
        return names
    }

    /// GNU's `-n r/N` with a filter: the lines of the stream at `fd` (a file's or standard
    /// input's) dealt in turn to `count` commands running side by side, line 1 to the first,
    /// line N+1 to the first again. Each command starts with its first line; those that got none
    /// start at the end with an empty input, unless ``SplitOperation/elideEmpty``. A command that
    /// closes its input early gets no more of its lines. Returns the names of the parts started.
    ///
    /// ## Errors
    /// `.io` when a read fails, or a command cannot be started or fails (the first failure,
    /// once every command started has ended).
    public func runRoundRobin(
        _ operation: SplitOperation, count: Int, from fd: Int32, path: String,
        counter: TransferCounter = TransferCounter(), starting: (String) -> Void = { _ in }
    ) throws -> [String] {
        guard count > 0 else { throw GCDCatError(.invalidInput, path: path, message: "no parts to deal to") }
        try SplitLimits.requirePartCount(Int64(count), path: path)
        try operation.naming.requireCapacity(count)
        let names = try (0..<count).map { try operation.naming.name(at: $0) }
        var parts = [DealtPart?](repeating: nil, count: count)
        var started: [(child: pid_t, name: String)] = []
        func part(_ index: Int) throws -> DealtPart {
            if let part = parts[index] { return part }
            starting(names[index])
            let ends = try OwnedPipe(for: names[index])
            let child = try spawn(readingFrom: ends.readEnd, file: names[index])
            started.append((child, names[index]))
            let part = DealtPart(input: ends.keepingWriteEnd())
            parts[index] = part
            return part
        }
        var failure: (any Error)?
        do {
            try holdingSIGPIPE {
                _ = try RoundRobinSplitter.deal(
                    fd: fd, path: path, separator: operation.separator, count: count, counter: counter
                ) { index, line in
                    let dealt = try part(index)
                    if dealt.open, let base = line.baseAddress {
                        dealt.open = try write(base, count: line.count, to: dealt.input, name: names[index])
                    }
                }
                if !operation.elideEmpty { for index in 0..<count { _ = try part(index) } }
            }
        } catch {
            failure = error
        }
        parts = []  // every command sees its EOF before any is waited for
        for (child, name) in started {
            do {
                try wait(for: child, name: name, failure: nil)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return started.map(\.name)
    }

    /// Whether ``runStreaming(_:from:path:counter:starting:)`` cuts `mode` as the bytes arrive
    /// (`--size`, `--lines`); the others need the input's length first.
    public static func cutsAsItArrives(_ mode: SplitMode) -> Bool {
        switch mode {
        case .size, .lineCount(_, headerLines: 0): true
        default: false
        }
    }

    /// Standard input (or another stream at `fd`) cut by a mode that needs its length (`-n N`,
    /// `-n l/N`, `-C`, `--size --line-boundary`), as GNU split does: the bytes are first copied
    /// to an unnamed temporary file (`O_TMPFILE` in `$TMPDIR`, else `/tmp`; it vanishes with the
    /// process), then cut as a file (``run(_:counter:starting:)``). Memory stays one buffer; the
    /// disk holds the input once. Returns the names.
    ///
    /// ## Errors
    /// `.io` when the temporary file cannot be made or written (the folder full), or a read
    /// fails; those of ``run(_:counter:starting:)``.
    public func runSpooled(
        _ operation: SplitOperation, from fd: Int32, path: String, counter: TransferCounter = TransferCounter(),
        starting: (String) -> Void = { _ in }
    ) throws -> [String] {
        let given = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        let directory = given.isEmpty ? "/tmp" : given
        let raw = PathName.withPathCString(directory) { gcdcat_open_tmpfile($0, 0o600) }
        guard raw >= 0 else {
            let code = gcdcat_errno()
            throw GCDCatError(
                .io, path: directory, syscall: "open", errno: code,
                message: "\(describeErrno(code)): -n and -C hold standard input in an unnamed temporary file "
                    + "there before cutting it (GNU split does the same); set TMPDIR to a writable folder with room")
        }
        let spool = OwnedDescriptor(adopting: raw)
        let capacity = 1 << 20
        let buffer = try Syscall.allocate(byteCount: capacity, alignment: 4096, path: path)
        defer { free(buffer) }
        while true {
            let count = try Syscall.read(fd, into: buffer, count: capacity, path: path)
            if count == 0 { break }
            try Syscall.writeAll(raw, from: buffer, count: count, path: "\(directory) (temporary file)")
        }
        var file = operation
        file.input = "/proc/self/fd/\(raw)"
        let names = try run(file, counter: counter, starting: starting)
        _ = consume spool  // closed once its last part was read
        return names
    }

    /// One part: start the command, write the part into its standard input, wait.
    private func feed(as name: String, writing: (borrowing OwnedDescriptor) throws -> Void) throws {
        // Close-on-exec: neither end may outlive this part in a later command (it would never
        // see its EOF).
        let ends = try OwnedPipe(for: name)
        let child = try spawn(readingFrom: ends.readEnd, file: name)
        let input = ends.keepingWriteEnd()
        var failure: (any Error)?
        do {
            try writing(input)
        } catch {
            failure = error
        }
        _ = consume input  // closed before the wait: the command sees its EOF
        try wait(for: child, name: name, failure: failure)
    }

    /// Waits for a part's command; `failure` (of feeding it) wins over how it ended.
    private func wait(for child: pid_t, name: String, failure: (any Error)?) throws {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { throw GCDCatError.syscall("waitpid", path: name, errno: errno) }
        }
        if let failure { throw failure }
        let termination: Int32 = status & 0x7F
        if termination != 0 && termination != SIGPIPE {
            throw GCDCatError(
                .io, path: name,
                message: "with FILE=\(name.displayPath), signal \(termination) from command: \(command)")
        }
        let code: Int32 = (status >> 8) & 0xFF
        if termination == 0 && code != 0 {
            throw GCDCatError(
                .io, path: name, message: "with FILE=\(name.displayPath), exit \(code) from command: \(command)")
        }
    }

    /// Runs `body` with SIGPIPE held back (blocked, then taken): a command that closed its input
    /// ends its part early, and the SIGPIPE a write to it raises is not taken for a reader of
    /// gcdcat's own output going away.
    private func holdingSIGPIPE(_ body: () throws -> Void) throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec()
                _ = sigtimedwait(&blocked, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        try body()
    }

    /// Writes to a part's command; false when it closed its input (the rest of the part is
    /// passed over, as GNU split does).
    private func write(
        _ bytes: UnsafeRawPointer, count: Int, to pipe: borrowing OwnedDescriptor, name: String
    ) throws -> Bool {
        do {
            try Syscall.writeAll(pipe.raw, from: bytes, count: count, path: name)
            return true
        } catch {
            if error.errno == EPIPE { return false }
            throw error
        }
    }

    /// Copies the ranges into the pipe; a command that closed its input ends the part early.
    private func copy(
        _ sources: [SourceRange], into pipe: borrowing OwnedDescriptor, name: String, buffer: UnsafeMutableRawPointer,
        counter: TransferCounter
    ) throws {
        for source in sources {
            let opened = try source.file.open()
            let fd = opened.raw
            var offset = source.offset
            let end = source.offset + source.length
            while offset < end {
                let want = Int(min(Int64(1 << 20), end - offset))
                let got = try Syscall.pread(fd, into: buffer, count: want, offset: offset, path: source.file.path)
                guard got > 0 else {
                    throw GCDCatError(.inputChanged, path: source.file.path, message: "shrank while it was read")
                }
                guard try write(UnsafeRawPointer(buffer), count: got, to: pipe, name: name) else { return }
                counter.add(bytes: Int64(got), chunks: 1)
                offset += Int64(got)
            }
        }
    }

    /// Starts `$SHELL -c COMMAND` with `input` as its standard input and FILE=`file`.
    private func spawn(readingFrom input: borrowing OwnedDescriptor, file: String) throws -> pid_t {
        var shell = "/bin/sh"
        if let value = getenv("SHELL"), value.pointee != 0 { shell = String(cString: value) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.raw, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var name: String = shell
        if let slash = shell.lastIndex(of: "/") { name = String(shell[shell.index(after: slash)...]) }
        let words: [String] = [name, "-c", command]
        let argv = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment = Self.environment(file: PathName.bytes(of: file))
        defer { for pointer in environment { free(pointer) } }
        environment.append(nil)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, shell, &actions, &attributes, argv, environment)
        guard spawned == 0 else {
            throw GCDCatError.syscall("posix_spawn", path: shell, errno: spawned)
        }
        return pid
    }

    /// This process's environment, with FILE set to `file`'s bytes.
    private static func environment(file: [UInt8]) -> [UnsafeMutablePointer<CChar>?] {
        var result: [UnsafeMutablePointer<CChar>?] = []
        var index = 0
        while let entry = environ[index] {
            if strncmp(entry, "FILE=", 5) != 0 { result.append(strdup(entry)) }
            index += 1
        }
        var bytes: [UInt8] = Array("FILE=".utf8)
        bytes.append(contentsOf: file)
        let entry: UnsafeMutablePointer<CChar> = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
        for (index, byte) in bytes.enumerated() { entry[index] = CChar(bitPattern: byte) }
        entry[bytes.count] = 0
        result.append(entry)
        return result
    }
}

/// A round-robin part's command while the lines are dealt (``SplitFilter/runRoundRobin(_:count:from:path:counter:starting:)``):
/// the write end of its input, closed when the part is released.
private final class DealtPart {
    let input: OwnedDescriptor
    /// False once the command closed its input: the rest of its lines are passed over.
    var open = true

    init(input: consuming OwnedDescriptor) {
        self.input = input
    }
}
