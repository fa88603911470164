import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A scripted HTTP/1.1 server on 127.0.0.1 for the transport's tests: raw sockets, one thread
/// per connection, so a test controls every byte of an answer and sees every byte of a request.
final class LoopbackHTTPServer: Sendable {
    struct Request: Sendable {
        var method: String
        var target: String
        /// Names lowercased, in the order sent.
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// Which accepted connection (0, 1, …) carried it.
        var connection: Int

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    /// What the server does with one request.
    enum Reply: Sendable {
        /// Write these bytes; then close the connection, or keep it for the next request.
        case raw(String, close: Bool)
        /// Say nothing for this long, then close.
        case stall(seconds: Double)
    }

    let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let seen = Mutex<[Request]>([])
    private let accepted = Atomic<Int>(0)
    /// Whether ``requests`` keeps each body; a test sending hundreds of large bodies checks
    /// them in its handler instead.
    private let keepsBodies: Bool

    /// Every request served so far, in order.
    var requests: [Request] { seen.withLock { $0 } }
    var connections: Int { accepted.load(ordering: .relaxed) }

    init(keepsBodies: Bool = true, handler: @escaping @Sendable (Request) -> Reply) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        self.handler = handler
        self.keepsBodies = keepsBodies
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// A URL on this server.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting; connections already open end when their client closes them.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    deinit { close(listener) }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let number = accepted.add(1, ordering: .relaxed).oldValue
            Thread.detachNewThread { [self] in serve(connection, number: number) }
        }
    }

    private func serve(_ fd: Int32, number: Int) {
        defer { close(fd) }
        var pending: [UInt8] = []
        while let request = Self.readRequest(fd, &pending, connection: number) {
            var kept = request
            if !keepsBodies { kept.body = [] }
            seen.withLock { [kept] in $0.append(kept) }
            switch handler(request) {
            case .raw(let text, let closing):
                let bytes = Array(text.utf8)
                guard LoopbackSocket.writeAll(fd, bytes), !closing else { return }
            case .stall(let seconds):
                Thread.sleep(forTimeInterval: seconds)
                return
            }
        }
    }

    /// One request: the head up to the blank line, then `Content-Length` bytes of body.
    private static func readRequest(_ fd: Int32, _ pending: inout [UInt8], connection: Int) -> Request? {
        let blankLine: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int? = nil
        while headEnd == nil {
            headEnd = pending.indices.dropLast(3).first { Array(pending[$0..<($0 + 4)]) == blankLine }
            if headEnd == nil, !LoopbackSocket.readMore(fd, &pending) { return nil }
        }
        let head = String(decoding: pending[..<headEnd!], as: UTF8.self)
        pending.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                line[..<colon].lowercased(),
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        while pending.count < length {
            if !LoopbackSocket.readMore(fd, &pending) { return nil }
        }
        let body = Array(pending[..<length])
        pending.removeFirst(length)
        return Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body,
            connection: connection)
    }
}
