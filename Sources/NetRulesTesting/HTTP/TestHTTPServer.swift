import Foundation
import Glibc
import Synchronization

/// A tiny HTTP/1.1 server on a real TCP socket for client and portal tests.
///
/// It listens on `address` (loopback by default, or an address inside a test namespace),
/// answers each connection with what `handler` says, then closes it. Only test traffic
/// reaches it. Invariant for `@unchecked Sendable`: all mutable state is behind `state`.
package final class TestHTTPServer: @unchecked Sendable {
    /// One request as received.
    package struct Request: Sendable {
        package var method: String
        package var path: String
        package var headers: [(String, String)]
        package var body: [UInt8]
        /// When the request's head was read, for ordering against the test's own steps.
        package var received: ContinuousClock.Instant = .now

        /// The value of the first header called `name`, compared without case.
        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// The body as UTF-8 text.
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What to answer a request with.
    package enum Reply: Sendable {
        /// A normal response; `Content-Length` and `Connection: close` are added.
        case response(status: Int, reason: String = "", headers: [(String, String)] = [], body: [UInt8] = [])
        /// Accept and read the request, then never answer (the socket stays open until `stop`).
        case hang
        /// These bytes as they are, nothing added (a hostile or broken server); then the connection
        /// closes, or with `hold` stays open until `stop`.
        case raw([UInt8], hold: Bool = false)
    }

    private struct State {
        var stopped = false
        var requests: [Request] = []
        var held: [CInt] = []
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
            serve(connection)
        }
    }

    private func serve(_ fd: CInt) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(fd) else {
            close(fd)
            return
        }
        state.withLock { $0.requests.append(request) }
        switch handler(request) {
        case .hang:
            state.withLock { $0.held.append(fd) }
        case .response(let status, let reason, let headers, let body):
            var text = "HTTP/1.1 \(status) \(reason.isEmpty ? "Status" : reason)\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            let bytes = Array(text.utf8) + body
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(fd)
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
        }
    }

    private func readRequest(_ fd: CInt) -> Request? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            data += buffer[0..<n]
            headerEnd = data.firstRange(of: terminator)?.upperBound
        }
        let head = String(decoding: data[..<headerEnd!], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        var body = Array(data[headerEnd!...])
        while body.count < length {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            body += buffer[0..<n]
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }
}
