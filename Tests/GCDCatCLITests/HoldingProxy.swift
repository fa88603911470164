import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of an HTTP server (the live RGW), which holds the
/// requests a test picks: a held request is never forwarded and never answered, and its
/// connection stays open, as with a gateway whose writes hang. Everything else passes through
/// byte for byte. With no upstream (`upstreamPort` nil) every request is held: a server that
/// accepts connections and never answers.
final class HoldingProxy: Sendable {
    let port: UInt16
    private let listener: Int32
    private let upstreamPort: UInt16?
    /// Whether to hold a request, given its method and target (`PUT /b/k?partNumber=1&…`).
    private let holds: @Sendable (String, String) -> Bool
    private let heldRequests = Mutex<[String]>([])
    private let heldSeconds = Mutex<[Double]>([])
    private let releasing = Atomic<Bool>(false)

    /// How long to wait before forwarding a request (seconds; 0 forwards it at once).
    private let delays: @Sendable (String, String) -> Double
    /// Whether to lose a request's answer: it is forwarded and the server's answer read, but
    /// the client never gets it (its connection stays open until it gives up), as when the
    /// network fails after the server applied the request.
    private let dropsAnswer: @Sendable (String, String) -> Bool
    /// Whether to give a HEAD's answer another `ETag` (``rewrittenETag``), as servers that encrypt
    /// with SSE-KMS or SSE-C, and some gateways, give one that is not the body's MD5.
    private let rewritesETag: @Sendable (String, String) -> Bool
    /// The ETag a rewritten answer carries.
    static let rewrittenETag = "0123456789abcdef0123456789abcdef-2"
    /// An answer of the proxy's own for a request, given its head (request line and headers),
    /// sent instead of forwarding it; nil forwards it.
    private let answers: @Sendable (_ head: String) -> [UInt8]?
    private let passedRequests = Mutex<[String]>([])
    private let droppedRequests = Mutex<[String]>([])

    init(
        upstream: String?, holding holds: @escaping @Sendable (_ method: String, _ target: String) -> Bool,
        delaying delays: @escaping @Sendable (_ method: String, _ target: String) -> Double = { _, _ in 0 },
        droppingAnswerTo dropsAnswer: @escaping @Sendable (_ method: String, _ target: String) -> Bool = { _, _ in
            false
        },
        rewritingETagOf rewritesETag: @escaping @Sendable (_ method: String, _ target: String) -> Bool = { _, _ in
            false
        },
        answering answers: @escaping @Sendable (_ head: String) -> [UInt8]? = { _ in nil }
    ) throws {
        upstreamPort = upstream.flatMap { URL(string: $0)?.port }.map { UInt16($0) }
        self.holds = holds
        self.answers = answers
        self.delays = delays
        self.dropsAnswer = dropsAnswer
        self.rewritesETag = rewritesETag
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// `METHOD target` of each request held so far.
    var held: [String] { heldRequests.withLock { $0 } }

    /// `METHOD target` of each request passed on so far (answered or not; delayed or not yet
    /// forwarded), in order.
    var passed: [String] { passedRequests.withLock { $0 } }

    /// `METHOD target` of each request whose answer was lost on purpose.
    var dropped: [String] { droppedRequests.withLock { $0 } }

    /// How long the client kept each held request's connection open before closing it (its
    /// timeout), from the request's head to the close, for those it closed so far.
    var heldFor: [Double] { heldSeconds.withLock { $0 } }

    /// Stops holding: requests from now on pass (those already held stay held).
    func release() { releasing.store(true, ordering: .relaxed) }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    deinit { close(listener) }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in relay(client) }
        }
    }

    /// Forwards the client's requests one by one (heads parsed, bodies by `Content-Length`),
    /// and the server's bytes back as they come, until a request is held or a side closes.
    private func relay(_ client: Int32) {
        var server: Int32 = -1
        if let upstreamPort {
            server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(client)
                close(server)
                return
            }
            let upstreamSocket = server
            Thread.detachNewThread {
                Self.copy(from: upstreamSocket, to: client)
                shutdown(client, Int32(SHUT_RDWR))
            }
        }
        var pending: [UInt8] = []
        while let (head, method, target, length) = Self.readHead(client, &pending) {
            if upstreamPort == nil || (!releasing.load(ordering: .relaxed) && holds(method, target)) {
                heldRequests.withLock { $0.append("\(method) \(target)") }
                let since = Date()
                // Held: never forwarded, never answered; the connection stays open until the
                // client gives up (its timeout) or exits.
                while LoopbackSocket.readMore(client, &pending) { pending.removeAll() }
                heldSeconds.withLock { $0.append(Date().timeIntervalSince(since)) }
                break
            }
            while pending.count < length, LoopbackSocket.readMore(client, &pending) {}
            let body = Array(pending.prefix(length))
            pending.removeFirst(min(length, pending.count))
            // Listed before the delay: a test that acts on a request it saw acts while it waits.
            passedRequests.withLock { $0.append("\(method) \(target)") }
            if let answer = answers(String(decoding: head, as: UTF8.self)) {
                guard LoopbackSocket.writeAll(client, answer) else { break }
                continue
            }
            let delay = delays(method, target)
            if delay > 0 { usleep(UInt32(delay * 1_000_000)) }
            if let upstreamPort, method == "HEAD", rewritesETag(method, target) {
                // On a connection of its own, so that the relay above never sees the answer.
                guard let answer = Self.answerHead(head + body, port: upstreamPort),
                    LoopbackSocket.writeAll(client, Self.rewritingETag(answer))
                else { break }
                continue
            }
            if let upstreamPort, dropsAnswer(method, target) {
                // On a connection of its own, so that the relay above never sees the answer.
                Self.sendAndDiscardAnswer(head + body, port: upstreamPort)
                droppedRequests.withLock { $0.append("\(method) \(target)") }
                while LoopbackSocket.readMore(client, &pending) { pending.removeAll() }
                break
            }
            guard LoopbackSocket.writeAll(server, head + body) else { break }
        }
        shutdown(server, Int32(SHUT_RDWR))
        close(client)
        if server >= 0 { close(server) }
    }

    private static func readHead(_ fd: Int32, _ pending: inout [UInt8]) -> ([UInt8], String, String, Int)? {
        let blankLine: [UInt8] = Array("\r\n\r\n".utf8)
        var end: Int? = nil
        while end == nil {
            end = pending.indices.dropLast(3).first { Array(pending[$0..<($0 + 4)]) == blankLine }
            if end == nil, !LoopbackSocket.readMore(fd, &pending) { return nil }
        }
        let head = Array(pending[..<(end! + 4)])
        pending.removeFirst(end! + 4)
        let text = String(decoding: head, as: UTF8.self)
        // "\r\n" is one Character: split the text, not the characters.
        let lines = text.components(separatedBy: "\r\n")
        let words = lines[0].split(separator: " ")
        guard words.count == 3 else { return nil }
        let length =
            lines
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return (head, String(words[0]), String(words[1]), length)
    }

    /// Sends `request` to the server on a new connection and reads its answer until the
    /// server has been silent for half a second after answering (or 30 s passed): the server
    /// applied the request, and nobody heard of it.
    private static func sendAndDiscardAnswer(_ request: [UInt8], port: UInt16) {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected, LoopbackSocket.writeAll(server, request) else { return }
        var answer: [UInt8] = []
        let start = Date()
        while Date().timeIntervalSince(start) < 30 {
            var poller = pollfd(fd: server, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, answer.isEmpty ? 1000 : 500)
            if ready == 0 && !answer.isEmpty { return }
            if ready > 0 && !LoopbackSocket.readMore(server, &answer) { return }
        }
    }

    /// Sends `request` (a HEAD) to the server on a new connection and returns its answer's head,
    /// which is the whole answer of a HEAD.
    private static func answerHead(_ request: [UInt8], port: UInt16) -> [UInt8]? {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected, LoopbackSocket.writeAll(server, request) else { return nil }
        var answer: [UInt8] = []
        let blankLine: [UInt8] = Array("\r\n\r\n".utf8)
        while !answer.indices.dropLast(3).contains(where: { Array(answer[$0..<($0 + 4)]) == blankLine }) {
            guard LoopbackSocket.readMore(server, &answer) else { return nil }
        }
        return answer
    }

    /// `answer` (a head) with its `ETag` replaced by ``rewrittenETag``; as it was without one.
    private static func rewritingETag(_ answer: [UInt8]) -> [UInt8] {
        let lines = String(decoding: answer, as: UTF8.self).components(separatedBy: "\r\n")
        let rewritten = lines.map { $0.lowercased().hasPrefix("etag:") ? "ETag: \"\(rewrittenETag)\"" : $0 }
        return Array(rewritten.joined(separator: "\r\n").utf8)
    }

    private static func copy(from source: Int32, to destination: Int32) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0, LoopbackSocket.writeAll(destination, Array(chunk[..<count])) else { return }
        }
    }
}
