/// The one verdict on a listed value, for a file and an object alike (`verify LIST` and
/// `verify s3://b/LIST`): what a line says once its bytes are hashed (``status(of:actual:hashingAs:)``),
/// then once every line of its list is known (``settled(_:confirmed:)``).
public enum ListVerdict {
    /// `entry`'s status when its bytes hash to `actual` under its algorithm.
    ///
    /// A guess is only a guess, even once another line confirmed it: a list joined from two
    /// tools' (sha256sum's and rhash --sha3-256's) holds two algorithms of one length. A value
    /// that another algorithm of that length gives (`hash` hashes the same bytes again, in
    /// ``HashAlgorithm/alternatives``' order, until one matches) is no corruption: UNCONFIRMED.
    ///
    /// ## Errors
    /// `hash`'s: the bytes could not be read again.
    public static func status(
        of entry: ChecksumList.Entry, actual: String, hashingAs hash: (HashAlgorithm) throws -> String
    ) rethrows -> ChecksumListVerifier.Status {
        guard actual != entry.expected else { return .ok }
        if entry.guessed {
            for other in entry.algorithm.alternatives where try hash(other) == entry.expected {
                return .unconfirmed(actual: actual)
            }
        }
        return .failed(actual: actual)
    }

    /// The guessed algorithms that `outcomes` confirm: at least one line of that guess matched.
    public static func confirmed(_ outcomes: some Sequence<ChecksumListVerifier.Outcome>) -> Set<HashAlgorithm> {
        var confirmed = Set<HashAlgorithm>()
        for outcome in outcomes where outcome.entry.guessed && outcome.status == .ok {
            confirmed.insert(outcome.entry.algorithm)
        }
        return confirmed
    }

    /// `outcome` once its list is known: a mismatch under a guessed algorithm outside
    /// `confirmed` (no line of that guess matched) is UNCONFIRMED, not FAILED. A list from one
    /// tool holds one algorithm, so one match confirms the guess and the others' differences
    /// are then real; with no match, a wrong guess (a `b2sum` list read as sha512) cannot be told
    /// from corruption, and is never reported as corruption.
    public static func settled(
        _ outcome: ChecksumListVerifier.Outcome, confirmed: Set<HashAlgorithm>
    ) -> ChecksumListVerifier.Outcome {
        guard outcome.entry.guessed, !confirmed.contains(outcome.entry.algorithm),
            case .failed(let actual) = outcome.status
        else { return outcome }
        var unconfirmed = outcome
        unconfirmed.status = .unconfirmed(actual: actual)
        return unconfirmed
    }

    /// The unconfirmed guesses among `outcomes`, in the order first seen: each gets a note.
    public static func unconfirmed(_ outcomes: some Sequence<ChecksumListVerifier.Outcome>) -> [HashAlgorithm] {
        var algorithms: [HashAlgorithm] = []
        for outcome in outcomes {
            if case .unconfirmed = outcome.status, !algorithms.contains(outcome.entry.algorithm) {
                algorithms.append(outcome.entry.algorithm)
            }
        }
        return algorithms
    }
}
