/// The order in which a split names its finished set, so that a set cut short while it is
/// being named (SIGKILL, a power cut, a crash) is never taken for a whole one.
///
/// A set is found from its first part (``PartDiscovery``), and a manifest or checksum list is
/// checked part by part. So every other part is named first, then the checksum list and the
/// manifest, and the first part last: until the last step, a merge from the first part finds no
/// such file, a merge from a later part is refused (the set starts late, and the manifest, if
/// named yet, lists the missing first part) and a verify of the manifest or list reports the
/// first part missing. All exit 1.
///
/// A number that discovery takes for a set's start is held back as well: `.001` (digits start
/// at 1 or 0) of a set that starts at `.000`, or `x01` of a GNU `-d` split (`x00`, `x01`, …).
/// They are named last in ascending order, so that a merge from `x00` meanwhile sees `x01`
/// missing before `x02`, and a merge from `x01` cannot start while `x00` is not there.
///
/// With `--force` over an existing set, the old parts at the held-back names are removed before
/// the first new name is placed: a set half-replaced then has no first part, instead of an old
/// first part that would start a mixed set.
///
/// ## Implementation details
/// Only a set of two parts, numbered over digits from 0 and without a manifest (`-d
/// --no-manifest`), has a partial state that discovery cannot tell from a whole set (`x00` alone,
/// or `x01` alone); its manifest, written by default, tells.
public enum PublishOrder {
    /// The indices of the parts named after the lists, in the order they are named.
    public static func heldBack(count: Int, naming: PartNaming) -> [Int] {
        // Discovery reads a suffix of digits as starting at 1 (`.001`), of letters at 0 (`aa`).
        let usualFirst = naming.style == .alpha ? 0 : 1
        return (0..<count).filter { $0 == 0 || naming.start + $0 <= usualFirst }
    }

    /// `parts` (in the set's order) and `lists` (the checksum list, then the manifest) in the
    /// order they are to be named.
    public static func arrange<T>(parts: [T], lists: [T], naming: PartNaming) -> [T] {
        let held = heldBack(count: parts.count, naming: naming)
        let early = parts.indices.filter { !held.contains($0) }.map { parts[$0] }
        return early + lists + held.map { parts[$0] }
    }
}
