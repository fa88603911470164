import GCDCatSystem

/// The error of a `split --force` that could not remove an output of the set it replaces (an
/// object store that denies DeleteObject, a folder that refuses `unlink`): the refusal, what
/// the new set and the old one are left as, and what to do.
///
/// Those removals come before the new set is named (``PublishOrder``), so a refusal always
/// leaves the new set unpublished; the old set is unchanged, or has lost what was removed
/// before the refusal, which includes its first part when that came first: then no merge
/// starts from it, and none can join its later parts to new ones.
struct ReplacedSetRemoval {
    /// Everything the split was to remove, in order.
    var planned: [String]
    /// The names among `planned` that are the old set's first part(s) (``PublishOrder``).
    var firstParts: [String]
    var objects: Bool

    /// `failure` (removing `planned[failed]`) with the state and the fix added.
    func error(_ failure: GCDCatError, failed: Int) -> GCDCatError {
        let removed = Array(planned[..<failed])
        let left = Array(planned[failed...])
        var error = failure
        var text =
            "; split --force removes what remains of the set it replaces (its first part, its parts past the new "
            + "set's last, its lists) before it names the new set, so that no merge joins old parts to new ones; "
            + "this one could not be \(objects ? "deleted" : "removed"), so the new set was not published"
        if removed.isEmpty {
            text += " and the old set there is unchanged"
        } else {
            text += "; the old set lost \(Self.listed(removed)) before that"
            if removed.contains(where: firstParts.contains) { text += ", so it can no longer be merged" }
        }
        text +=
            objects
            ? ". Allow these keys s3:DeleteObject there, or delete by hand (aws s3 rm) "
            : ". Let this user remove them (write permission on the folder), or remove by hand (rm) "
        text += "what is still to go, \(Self.listed(left)), then run the split again"
        error.message += text
        return error
    }

    /// Names, or the first three, an ellipsis and the last with the count when there are many.
    private static func listed(_ paths: [String]) -> String {
        let shown = paths.map(\.displayPath)
        guard shown.count > 5, let last = shown.last else { return shown.joined(separator: ", ") }
        return shown.prefix(3).joined(separator: ", ") + " … \(last) (\(shown.count) in all)"
    }
}
