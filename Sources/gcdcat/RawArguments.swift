import GCDCatCore
import GCDCatStartup

/// The command line as the kernel passed it, decoded losslessly.
///
/// `CommandLine.arguments` repairs bytes that are not UTF-8 to U+FFFD, so a Latin-1 file name
/// would name a file that does not exist; ``PathName`` keeps every byte. The vector is the one
/// glibc handed the startup constructor: `CommandLine` finds its own through /proc/self/maps,
/// and is empty when that `open` fails (argc 0, which trapped here).
let rawArguments: [String] = {
    if gcdcat_startup_argc() > 0, let argv = gcdcat_startup_argv() {
        return (1..<Int(gcdcat_startup_argc())).map { PathName.decode(cString: argv[$0]!) }
    }
    return (1..<max(1, Int(CommandLine.argc))).map { PathName.decode(cString: CommandLine.unsafeArgv[$0]!) }
}()

/// GNU split's `--numeric-suffixes=FROM` and `--hex-suffixes=FROM`, whose value is optional
/// (ArgumentParser's options always take one), spelled as the flag plus `--suffix-from FROM`:
/// FROM is the first suffix as written, in the flag's digits. Only in split's arguments, and
/// only before a `--` that ends the options. Also bench's first spelling, `--json FILE`.
func expandingOptionalValues(_ arguments: [String]) -> [String] {
    if arguments.first == "bench" { return expandingBenchJSONFile(arguments) }
    guard arguments.first == "split" else { return arguments }
    var result: [String] = []
    var optionsEnded = false
    for argument in arguments {
        if !optionsEnded, let flag = ["--numeric-suffixes=", "--hex-suffixes="].first(where: argument.hasPrefix) {
            result += [String(flag.dropLast()), "--suffix-from", String(argument.dropFirst(flag.count))]
        } else {
            if argument == "--" { optionsEnded = true }
            result.append(argument)
        }
    }
    return result
}

/// bench's `--json FILE` (and `--json=FILE`), from before `--json` became a flag, as
/// `--json-file FILE`. bench takes no arguments, so a word after `--json` that is not an
/// option can only be the file.
func expandingBenchJSONFile(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        if argument.hasPrefix("--json=") {
            result += ["--json-file", String(argument.dropFirst("--json=".count))]
        } else if argument == "--json", index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") {
            result += ["--json-file", arguments[index + 1]]
            index += 1
        } else {
            result.append(argument)
        }
        index += 1
    }
    return result
}
