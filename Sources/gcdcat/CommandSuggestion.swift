import GCDCatCore

#if canImport(Glibc)
    import Glibc
#endif

/// The subcommand `word` was probably meant to be, when it is no file and is one or two edits
/// away from a command's name (`spilt` → `split`, `verfy` → `verify`).
func likelyMistypedCommand(_ word: String) -> String? {
    var info = stat()
    guard !word.contains("/"), !word.contains("."), PathName.withPathCString(word, { lstat($0, &info) }) != 0
    else { return nil }
    let names = GCDCat.configuration.subcommands.map { $0._commandName }
    return
        names
        .map { (name: $0, distance: editDistance(word.lowercased(), $0)) }
        .filter { $0.distance <= 2 && $0.distance < $0.name.count / 2 + 1 }
        .min { $0.distance < $1.distance }?.name
}

/// Levenshtein distance, counting a swap of neighbours (`spilt`) as one edit.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var rows = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { rows[i][0] = i }
    for j in 0...b.count { rows[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
            }
        }
    }
    return rows[a.count][b.count]
}
