import GCDCatSystem

/// This machine's clock against the server's, read from a refused request: S3 refuses a
/// signature more than 15 minutes from its own time, with `RequestTimeTooSkewed`, or (RGW, or
/// a HEAD without a body) with a plain 403 that would otherwise read as a key problem.
package struct S3ClockSkew: Sendable, Equatable {
    /// The request's `x-amz-date`, as this machine's clock gave it.
    package var sent: String
    /// The answer's `Date` header, when it had one.
    package var serverDate: String?
    /// Server minus local, in seconds; nil without a server date.
    package var seconds: Double?

    /// How far apart the clocks may be before S3 refuses the signature.
    package static let tolerance: Double = 15 * 60

    /// nil unless `code` says skew, or the two times are further apart than S3 allows.
    package init?(code: String, sentAmzDate: String, serverDate: String?) {
        sent = sentAmzDate
        self.serverDate = serverDate
        let local = Self.amzDateSeconds(sentAmzDate)
        seconds = serverDate.flatMap(S3Dates.httpDate).flatMap { server in local.map { server - $0 } }
        let far = seconds.map { abs($0) > Self.tolerance } ?? false
        guard code == "RequestTimeTooSkewed" || far else { return nil }
    }

    /// What the message says instead of "check the keys".
    package var explanation: String {
        var text =
            "this machine's clock is not the server's: the request was signed at \(S3Dates.readable(amzDate: sent))"
        if let serverDate { text += ", the server's Date was \(serverDate)" }
        if let seconds {
            text += " (this machine's clock is \(Self.duration(seconds)) \(seconds > 0 ? "behind" : "ahead"))"
        }
        return text + "; S3 refuses signatures more than 15 minutes off: set the clock (NTP), the keys are not at fault"
    }

    /// `20261126T064500Z` as seconds since 1970.
    private static func amzDateSeconds(_ text: String) -> Double? {
        let characters = Array(text)
        guard characters.count == 16, characters[8] == "T" else { return nil }
        let digits = characters.map(String.init)
        let iso =
            digits[0..<4].joined() + "-" + digits[4..<6].joined() + "-" + digits[6..<8].joined() + "T"
            + digits[9..<11].joined() + ":" + digits[11..<13].joined() + ":" + digits[13..<15].joined() + "Z"
        return S3Dates.isoDate(iso)
    }

    private static func duration(_ seconds: Double) -> String {
        let total = Int(abs(seconds).rounded())
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        if hours > 0 { return "\(hours) h \(minutes) min" }
        return minutes > 0 ? "\(minutes) min \(rest) s" : "\(rest) s"
    }
}
