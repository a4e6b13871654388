import Foundation
import Glibc
import Synchronization

/// The one small HTTP/1.1 server of the tests, on a real TCP socket: HTTP client, portal, webhook
/// and outbox tests.
///
/// It listens on `address` (loopback by default, or an address inside a test namespace), serves
/// each connection on a thread of its own, records every request with its raw bytes (target and
/// header values exactly as sent, for hostile-value tests), and answers with what `handler` says:
/// a `.response` closes the connection unless `keepAlive` (webhook clients reuse connections);
/// an idle kept-alive connection is closed after 2 s. Only test traffic reaches it. Invariant for
/// `@unchecked Sendable`: all mutable state is behind `state`.
package final class TestHTTPServer: @unchecked Sendable {
    /// One request as received.
    package struct Request: Sendable {
        package var method: String
        package var path: String
        package var headers: [(String, String)]
        package var body: [UInt8]
        /// The request target as sent, still percent-encoded, byte for byte.
        package var target: [UInt8] = []
        /// The header fields with their values as sent, byte for byte.
        package var rawHeaders: [(name: String, value: [UInt8])] = []
        /// When the request's head was read, for ordering against the test's own steps.
        package var received: ContinuousClock.Instant = .now

        /// The value of the first header called `name`, compared without case.
        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// The value of the first header called `name` as sent, compared without case.
        package func headerBytes(_ name: String) -> [UInt8]? {
            rawHeaders.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The `Idempotency-Key` a webhook delivery sends.
        package var idempotencyKey: String? { header("Idempotency-Key") }

        /// The body as UTF-8 text.
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What to answer a request with.
    package enum Reply: Sendable {
        /// A normal response; `Content-Length` is added, and `Connection: close` unless `keepAlive`.
        case response(
            status: Int, reason: String = "", headers: [(String, String)] = [], body: [UInt8] = [],
            keepAlive: Bool = false)
        /// Accept and read the request, then never answer (the socket stays open until `stop`).
        case hang
        /// These bytes as they are, nothing added (a hostile or broken server); then the connection
        /// closes, or with `hold` stays open until `stop`.
        case raw([UInt8], hold: Bool = false)

        /// `status` with the body `ok`, the connection kept alive.
        package static func status(_ status: Int) -> Reply {
            .response(status: status, body: Array("ok".utf8), keepAlive: true)
        }

        /// A redirect to `location`, the connection kept alive.
        package static func redirect(_ status: Int, _ location: String) -> Reply {
            .response(status: status, reason: "Moved", headers: [("Location", location)], keepAlive: true)
        }

        /// `text` as it is (another kind of service on the port), then the connection closes.
        package static func raw(_ text: String) -> Reply { .raw(Array(text.utf8)) }
    }

    private struct State {
        var stopped = false
        var requests: [Request] = []
        var held: [CInt] = []
        var connections = 0
    }

    /// The address the server listens on.
    package let address: String
    /// The port the kernel chose.
    package let port: UInt16
    private let listener: CInt
    private let handler: @Sendable (Request) -> Reply
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    /// The URL of `path` on this server.
    package func url(_ path: String = "/") -> String { "http://\(address):\(port)\(path)" }

    /// Every request received so far.
    package var requests: [Request] { state.withLock { $0.requests } }

    /// How many connections it has accepted so far (behind `TestTLSServer`, one per TLS connection).
    package var connectionCount: Int { state.withLock { $0.connections } }

    /// Starts listening on a kernel-chosen port; with `namespace`, the socket is made inside it.
    package init(
        address: String = "127.0.0.1", in namespace: TestNamespace? = nil,
        handler: @escaping @Sendable (Request) -> Reply
    ) throws {
        let open = { @Sendable () throws -> (CInt, UInt16) in try TestHTTPServer.listen(on: address) }
        (listener, port) = try namespace.map { try $0.perform(open) } ?? open()
        self.address = address
        self.handler = handler
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting, closes held connections and the listener; idempotent.
    package func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if wasStopped { return }
        finished.wait()
        for fd in state.withLock({ $0.held }) { close(fd) }
        close(listener)
    }

    private static func listen(on address: String) throws -> (CInt, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket: errno \(errno)") }
        var one: CInt = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else { throw TestError("bad address \(address)") }
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else { throw TestError("bind/listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: sin.sin_port))
    }

    private func acceptLoop() {
        defer { finished.signal() }
        while !state.withLock({ $0.stopped }) {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            state.withLock { $0.connections += 1 }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ fd: CInt) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var pending: [UInt8] = []
        while let request = readRequest(fd, &pending) {
            state.withLock { $0.requests.append(request) }
            switch handler(request) {
            case .hang:
                state.withLock { $0.held.append(fd) }
                return
            case .response(let status, let reason, let headers, let body, let keepAlive):
                var text = "HTTP/1.1 \(status) \(reason.isEmpty ? "Status" : reason)\r\n"
                for (name, value) in headers { text += "\(name): \(value)\r\n" }
                text += "Content-Length: \(body.count)\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n"
                let bytes = Array(text.utf8) + body
                let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if !keepAlive || sent <= 0 {
                    close(fd)
                    return
                }
            case .raw(let bytes, let hold):
                // The client may stop reading (a body past its limit): give up after the 2 s timeout.
                var timeout = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if hold {
                    state.withLock { $0.held.append(fd) }
                } else {
                    close(fd)
                }
                return
            }
        }
        close(fd)
    }

    /// Reads one request from `fd`, `data` holding what was read beyond the previous one
    /// (keep-alive); nil at the end of the connection or on its idle timeout.
    private func readRequest(_ fd: CInt, _ data: inout [UInt8]) -> Request? {
        var buffer = [UInt8](repeating: 0, count: 16384)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd = data.firstRange(of: terminator)?.upperBound
        while headerEnd == nil {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            data += buffer[0..<n]
            headerEnd = data.firstRange(of: terminator)?.upperBound
        }
        let head = Array(data[..<(headerEnd! - 4)])
        let lines = head.split(separator: 0x0A).map { Array($0.last == 0x0D ? $0.dropLast() : $0) }
        let requestLine = lines.first?.split(separator: 0x20) ?? []
        guard requestLine.count >= 2 else { return nil }
        var rawHeaders: [(name: String, value: [UInt8])] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            var value = Array(line[(colon + 1)...])
            while value.first == 0x20 || value.first == 0x09 { value.removeFirst() }
            while value.last == 0x20 || value.last == 0x09 { value.removeLast() }
            rawHeaders.append((String(decoding: line[..<colon], as: UTF8.self), value))
        }
        let length =
            rawHeaders.first { $0.name.lowercased() == "content-length" }
            .flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } ?? 0
        while data.count < headerEnd! + length {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            data += buffer[0..<n]
        }
        let end = min(data.count, headerEnd! + length)
        let body = Array(data[headerEnd!..<end])
        data.removeFirst(end)
        let target = Array(requestLine[1])
        return Request(
            method: String(decoding: requestLine[0], as: UTF8.self), path: String(decoding: target, as: UTF8.self),
            headers: rawHeaders.map { ($0.name, String(decoding: $0.value, as: UTF8.self)) }, body: body,
            target: target, rawHeaders: rawHeaders)
    }
}

/// Undoes percent-encoding, byte for byte (a request target as `TestHTTPServer` recorded it).
package func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
            let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
        {
            out.append(value)
            index += 3
        } else {
            out.append(bytes[index])
            index += 1
        }
    }
    return out
}
