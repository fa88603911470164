import GCDCatCore

/// The command line as the kernel passed it, decoded losslessly.
///
/// `CommandLine.arguments` repairs bytes that are not UTF-8 to U+FFFD, so a Latin-1 file name
/// would name a file that does not exist; ``PathName`` keeps every byte.
let rawArguments: [String] = (1..<Int(CommandLine.argc)).map { index in
    PathName.decode(cString: CommandLine.unsafeArgv[index]!)
}

/// GNU split's `--numeric-suffixes=FROM`, whose value is optional (ArgumentParser's options
/// always take one), spelled as the flag plus `--start FROM`. Only in split's arguments, and
/// only before a `--` that ends the options.
func expandingOptionalValues(_ arguments: [String]) -> [String] {
    guard arguments.first == "split" else { return arguments }
    var result: [String] = []
    var optionsEnded = false
    for argument in arguments {
        if !optionsEnded, argument.hasPrefix("--numeric-suffixes=") {
            result += ["--numeric-suffixes", "--start", String(argument.dropFirst("--numeric-suffixes=".count))]
        } else {
            if argument == "--" { optionsEnded = true }
            result.append(argument)
        }
    }
    return result
}
