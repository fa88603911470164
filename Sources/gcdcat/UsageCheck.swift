import ArgumentParser
import Synchronization

/// Puts ArgumentParser's own errors (an unknown option, a missing value) before a command's
/// `validate()`.
///
/// ArgumentParser runs `validate()` before it reports leftover words, so `split --bogus 100K f`
/// said "Give --size or --parts." When validation fails, the arguments are parsed again with
/// validation off: a parse error found that way is the one to report.
enum UsageCheck {
    private static let validating = Atomic<Bool>(true)

    /// False while the second parse runs; a command's `validate()` then returns at once.
    static var validates: Bool { validating.load(ordering: .relaxed) }

    /// Parses `arguments` as the root command would, reporting parse errors before validation errors.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        do {
            return try GCDCat.parseAsRoot(arguments)
        } catch let validationError {
            validating.store(false, ordering: .relaxed)
            defer { validating.store(true, ordering: .relaxed) }
            do {
                _ = try GCDCat.parseAsRoot(arguments)
            } catch {
                if GCDCat.exitCode(for: error) == GCDCat.exitCode(for: validationError),
                    GCDCat.message(for: error) != GCDCat.message(for: validationError)
                {
                    throw error
                }
            }
            throw validationError
        }
    }
}
