import ArgumentParser

/// The shell completion scripts: ArgumentParser's, with one thing it cannot express added.
/// Merge is the default command, so `gcdcat movie.zip.001` is the headline use, but the
/// generated scripts complete only subcommand names after `gcdcat`. Here the first word also
/// completes as a file, and the words after a file complete as `gcdcat merge`'s.
enum CompletionScripts {
    /// The script for `shell`, or nil for a shell the generator does not know.
    static func script(for name: String) -> String? {
        guard let shell = CompletionShell(rawValue: name) else { return nil }
        let generated = GCDCat.completionScript(for: shell)
        switch shell {
        case .bash: return patchedBash(generated)
        case .zsh: return patchedZsh(generated)
        case .fish: return patchedFish(generated)
        default: return generated
        }
    }

    /// `_gcdcat`'s fallback branch offers subcommands; it now also offers files for the first
    /// word, and hands the words after a file to `_gcdcat_merge`.
    private static func patchedBash(_ script: String) -> String {
        let anchor = "        # Offer subcommand completions\n"
        guard let range = script.firstRange(of: anchor) else { return script }
        let branchEnd = script[range.upperBound...].firstRange(of: "        ;;\n")
        guard let branchEnd else { return script }
        let offer = script[range.upperBound..<branchEnd.lowerBound]
        let replacement = """
                    # merge is the default command: the first word is a subcommand or a part, and
                    # the words after a part complete as 'gcdcat merge …' does.
                    if [[ "${COMP_CWORD}" -le 1 ]]; then
                \(offer.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                        __gcdcat_add_completions -f
                    else
                        unparsed_words=("${subcommand}" "${unparsed_words[@]}")
                        _gcdcat_merge
                    fi

            """
        return String(script[..<range.lowerBound]) + replacement + String(script[branchEnd.lowerBound...])
    }

    /// The `command` state also offers files; the `arg` state after a file is merge's.
    private static func patchedZsh(_ script: String) -> String {
        var patched = script.replacing(
            "        _describe -V subcommand subcommands && ret=0\n",
            with: "        _describe -V subcommand subcommands && ret=0\n        _files && ret=0\n", maxReplacements: 1)
        patched = patched.replacing(
            "            \"_gcdcat_${words[1]}\" && ret=0\n            ;;\n        esac\n",
            with: "            \"_gcdcat_${words[1]}\" && ret=0\n            ;;\n        *)\n"
                + "            _gcdcat_merge && ret=0\n            ;;\n        esac\n",
            maxReplacements: 1)
        return patched
    }

    /// Files wherever no subcommand has been named.
    private static func patchedFish(_ script: String) -> String {
        let subcommands = GCDCat.configuration.subcommands.map { $0._commandName } + ["help"]
        return script
            + "# merge is the default command: files wherever no subcommand was named.\n"
            + "complete -c 'gcdcat' -n 'not __fish_seen_subcommand_from \(subcommands.joined(separator: " "))' -F\n"
    }
}
