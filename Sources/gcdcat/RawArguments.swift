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

/// merge's long lists of parts and checksum's of files, taken out of the command line before
/// ArgumentParser sees it.
///
/// swift-argument-parser takes time quadratic in the words it parses for merge (it removes each
/// parsed word from an array, comparing origins: `SplitArguments.remove(at:)`), so 20,000 parts
/// took about 3 minutes before the merge began, and `xargs gcdcat checksum` spent its time
/// parsing. A run of at least ``threshold`` words that are not options keeps its first word
/// (which may be an option's value, or the command's name) and is otherwise passed as one
/// marker word, which no argv can hold (it starts with a NUL); merge's, checksum's and protect's
/// `validate()` put the words back with ``expand(_:)``.
enum PositionalRuns {
    static let threshold = 64
    static let marker = "\u{0}gcdcat-words-"

    /// The command line as parsed, and the runs taken out of it (marker N stands for runs[N]).
    static let compressed: (arguments: [String], runs: [[String]]) = compress(JSONErrors.arguments)

    static func compress(_ arguments: [String]) -> (arguments: [String], runs: [[String]]) {
        let others = ["split", "verify", "bench", "help"]
        guard let first = arguments.first, !others.contains(first), !first.hasPrefix("-") || first == "-" else {
            return (arguments, [])
        }
        var result: [String] = []
        var runs: [[String]] = []
        var index = 0
        func take(_ words: ArraySlice<String>) {
            result.append(marker + String(runs.count))
            runs.append(Array(words))
        }
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" {
                let rest = arguments[(index + 1)...]
                result.append(word)
                if rest.count >= threshold { take(rest) } else { result += rest }
                break
            }
            var end = index
            while end < arguments.count, arguments[end] != "--", !arguments[end].hasPrefix("-") || arguments[end] == "-"
            {
                end += 1
            }
            if end - index >= threshold {
                result.append(arguments[index])
                take(arguments[(index + 1)..<end])
                index = end
            } else {
                result.append(word)
                index += 1
            }
        }
        return (result, runs)
    }

    /// `values` with each marker replaced by the words it stands for.
    static func expand(_ values: [String], runs: [[String]] = compressed.runs) -> [String] {
        guard !runs.isEmpty, values.contains(where: { $0.hasPrefix(marker) }) else { return values }
        return values.flatMap { value -> [String] in
            guard value.hasPrefix(marker), let number = Int(value.dropFirst(marker.count)),
                runs.indices.contains(number)
            else { return [value] }
            return runs[number]
        }
    }
}
