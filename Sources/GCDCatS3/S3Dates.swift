import GCDCatSystem

/// The two date forms S3 answers with, as seconds since 1970 (UTC), to whole seconds. Parsed by
/// hand: Swift's Glibc module has no `strptime`.
package enum S3Dates {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `2026-11-26 06:45:00 UTC`, for messages.
    package static func readable(secondsSince1970 seconds: Double) -> String {
        readable(amzDate: SigV4Signer.amzDate(secondsSince1970: Int(seconds)))
    }

    /// `20261126T064500Z` as `2026-11-26 06:45:00 UTC`.
    package static func readable(amzDate: String) -> String {
        let c = Array(amzDate)
        guard c.count == 16 else { return amzDate }
        return "\(String(c[0..<4]))-\(String(c[4..<6]))-\(String(c[6..<8])) "
            + "\(String(c[9..<11])):\(String(c[11..<13])):\(String(c[13..<15])) UTC"
    }

    /// An HTTP `Date` header: `Wed, 25 Nov 2026 02:51:43 GMT`.
    package static func httpDate(_ text: String) -> Double? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int(fields[1]),
            let month = months.firstIndex(of: String(fields[2])), let year = Int(fields[3])
        else { return nil }
        return seconds(year: year, month: month + 1, day: day, time: fields[4])
    }

    /// An ISO 8601 timestamp such as ListMultipartUploads' `Initiated`, `2026-11-25T02:51:43.123Z`
    /// (the fraction is dropped), or a credential's `Expiration` with an offset
    /// (`2026-11-25T11:51:43+09:00`, `…-0500`) or awscli v2's older `…UTC`: the offset is taken
    /// off, so the result is UTC. No zone at all is read as UTC; an unreadable zone gives nil.
    package static func isoDate(_ text: String) -> Double? {
        let halves = text.split(separator: "T", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let date = halves[0].split(separator: "-")
        guard date.count == 3, let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
            let local = seconds(year: year, month: month, day: day, time: halves[1].prefix(8)),
            let offset = zoneOffset(halves[1].dropFirst(8).drop { $0 == "." || $0.isNumber })
        else { return nil }
        return local - offset
    }

    /// `Z`, `UTC`, nothing, `+HH:MM`, `-HHMM` or `+HH`, as seconds east of UTC; nil for anything else.
    private static func zoneOffset(_ zone: Substring) -> Double? {
        if zone.isEmpty || zone == "Z" || zone == "z" || zone == "UTC" { return 0 }
        guard let sign = zone.first, sign == "+" || sign == "-" else { return nil }
        let digits = zone.dropFirst().filter { $0 != ":" }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let hours = Int(digits.prefix(2)),
            let minutes = Int(digits.dropFirst(2).isEmpty ? "0" : digits.dropFirst(2)),
            hours < 24, minutes < 60
        else { return nil }
        return Double((hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1))
    }

    /// `HH:MM:SS` on a civil date, as seconds since 1970.
    private static func seconds(year: Int, month: Int, day: Int, time: Substring) -> Double? {
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard (1...12).contains(month), (1...31).contains(day), clock.count == 3, (0..<24).contains(clock[0]),
            (0..<60).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        // Days from 1970-01-01 to the date (the proleptic Gregorian calendar, years from March).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2])
    }
}
