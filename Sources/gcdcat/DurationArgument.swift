import ArgumentParser

/// A duration option's value (`90`, `90s`, `15m`, `2h`, as `--older-than` takes an age) as
/// seconds. Zero is refused unless `allowingZero`: a deadline that has always passed would
/// fail every request.
///
/// ## Errors
/// A `ValidationError` naming the option and the forms it takes.
func parseDuration(_ text: String, option: String, allowingZero: Bool = false) throws -> Double {
    let seconds: Double
    do {
        seconds = try parseAge(text)
    } catch let error as AgeTooLarge {
        throw ValidationError("\(option) \(error)")
    } catch {
        throw ValidationError(
            "\(option) '\(text)' is not a duration: give seconds, or a number with s, m, h or d (30s, 2m)")
    }
    guard seconds > 0 || allowingZero else { throw ValidationError("\(option) must be at least 1s") }
    return seconds
}
