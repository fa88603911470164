import CCurl
import FoundationEssentials
import GCDCatSystem

/// One request's state while libcurl runs it: the body it reads from, and the status line,
/// headers and body it answers with. ``CurlTransport`` hands it to libcurl's callbacks as
/// their context pointer.
package final class CurlExchange {
    /// The caller's body, read in place: libcurl copies from it into its socket buffer only.
    package let body: UnsafeRawBufferPointer
    private(set) var sent = 0
    /// Header names lowercased; a repeated header's values joined with ", ".
    private(set) var headers: [String: String] = [:]
    private(set) var received = Data()
    /// Whether a status line came back: once the server has answered, it may have acted, and
    /// a lost connection is the retry policy's to judge, not the transport's.
    private(set) var answered = false
    /// How long the exchange may go without moving a byte either way, in seconds.
    private let idleLimit: Double
    /// The bytes moved both ways when the progress callback last saw a change, and when.
    private var moved: Int64 = -1
    private var lastMoved = ContinuousClock.now
    /// Whether ``progress(moved:)`` ended the transfer for want of progress.
    private(set) var idledOut = false
    /// libcurl's message for the last failure (`CURLOPT_ERRORBUFFER`).
    package let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    /// The largest body whose `Content-Length` is trusted to reserve memory up front (a
    /// ranged GET is 8 MiB); a larger one grows as it arrives.
    private static let largestReservation = 64 << 20

    package init(body: UnsafeRawBufferPointer, idleLimit: Double = .infinity) {
        self.body = body
        self.idleLimit = idleLimit
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit { errorBuffer.deallocate() }

    package var errorMessage: String { String(cString: errorBuffer) }

    /// The context pointer libcurl passes back to the callbacks; valid while `self` lives,
    /// which ``CurlTransport`` ensures for the whole `curl_easy_perform`.
    package var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    package static func from(_ context: UnsafeMutableRawPointer?) -> CurlExchange {
        Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: What the callbacks do

    /// Fills libcurl's buffer with the next bytes of the body; 0 at its end.
    package func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, body.count - sent)
        guard count > 0, let base = body.baseAddress else { return 0 }
        UnsafeMutableRawPointer(buffer).copyMemory(from: base + sent, byteCount: count)
        sent += count
        return count
    }

    /// libcurl's progress callback (at least once a second, idle or not), given the bytes moved
    /// both ways so far; false ends the transfer once none moved for `idleLimit`. libcurl's own
    /// low-speed limit judges a 5-second average, which stays above 1 byte/s for 5 s after a
    /// body went out at once: a held UploadPart overran `--request-timeout` by 5 to 6 s.
    package func progress(moved total: Int64) -> Bool {
        let now = ContinuousClock.now
        if total != moved {
            moved = total
            lastMoved = now
            return true
        }
        let idle = now - lastMoved
        idledOut = Double(idle.components.seconds) + Double(idle.components.attoseconds) / 1e18 >= idleLimit
        return !idledOut
    }

    /// Rewinds the body: libcurl re-sends it when a kept-alive connection turns out closed.
    package func seek(to offset: Int64, origin: Int32) -> Int32 {
        guard origin == SEEK_SET, offset >= 0, offset <= Int64(body.count) else {
            return Int32(CURL_SEEKFUNC_CANTSEEK)
        }
        sent = Int(offset)
        return Int32(CURL_SEEKFUNC_OK)
    }

    package func receive(_ bytes: UnsafeRawBufferPointer) {
        if received.isEmpty, let length = headers["content-length"].flatMap({ Int($0) }),
            length > 0, length <= Self.largestReservation
        {
            received.reserveCapacity(length)
        }
        received.append(contentsOf: bytes)
    }

    /// One header line as libcurl delivers it, `\r\n` included. A status line starts a new
    /// header block (after a `100 Continue`, the final answer's headers replace its own).
    package func header(_ line: UnsafeRawBufferPointer) {
        // Cut the line end as bytes: "\r\n" is one Character to String.
        var length = line.count
        while length > 0, line[length - 1] == UInt8(ascii: "\r") || line[length - 1] == UInt8(ascii: "\n") {
            length -= 1
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<length]), as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            answered = true
            headers = [:]
            received = Data()
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingSpaces
        if let earlier = headers[name] {
            headers[name] = earlier + ", " + value
        } else {
            headers[name] = value
        }
    }
}
