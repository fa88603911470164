import GCDCatCore

/// The command line as the kernel passed it, decoded losslessly.
///
/// `CommandLine.arguments` repairs bytes that are not UTF-8 to U+FFFD, so a Latin-1 file name
/// would name a file that does not exist; ``PathName`` keeps every byte.
let rawArguments: [String] = (1..<Int(CommandLine.argc)).map { index in
    PathName.decode(cString: CommandLine.unsafeArgv[index]!)
}
