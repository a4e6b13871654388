@preconcurrency import Glibc
import NetRulesSystem
import Synchronization

@testable import NetRulesActions

/// A small HTTP/1.1 server on 127.0.0.1 for webhook tests: one thread per connection, answers
/// chosen by a handler, every request recorded with its raw header bytes.
///
/// Only loopback: nothing here ever leaves the machine. Invariant for `@unchecked Sendable`: the
/// listener is immutable after init and all mutable state is behind `state`.
final class LoopbackHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        /// The request target as sent, still percent-encoded.
        var target: [UInt8]
        var headers: [(name: String, value: [UInt8])]
        var body: [UInt8]

        func header(_ name: String) -> [UInt8]? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var idempotencyKey: String? { header("Idempotency-Key").map { String(decoding: $0, as: UTF8.self) } }
    }

    enum Reply: Sendable {
        case status(Int)
        /// Read the request, then never answer (until the server stops).
        case hang
        /// A redirect to this location.
        case redirect(Int, String)
        /// Bytes that are not HTTP at all (another kind of service on the port).
        case raw(String)
    }

    private struct State {
        var requests: [Request] = []
        var stopped = false
        var held: [CInt] = []
    }

    let port: UInt16
    private let listener: CInt
    private let state = Mutex(State())
    private let handler: @Sendable (Request) -> Reply

    init(handler: @escaping @Sendable (Request) -> Reply) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else { throw ServerError("bind/listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        self.handler = handler
        DedicatedThread.start { [self] in acceptLoop() }
    }

    func url(_ path: String = "/hook") -> String { "http://127.0.0.1:\(port)\(path)" }

    var requests: [Request] { state.withLock { $0.requests } }

    func stop() {
        let held = state.withLock { state in
            state.stopped = true
            return state.held
        }
        held.forEach { close($0) }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        stop()
        close(listener)
    }

    private func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            // accept4 is GNU-only in Swift's Glibc; the test process spawns its children with closefrom anyway.
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            DedicatedThread.start { [self] in serve(connection) }
        }
    }

    private func serve(_ fd: CInt) {
        // Keep-alive: serve requests on this connection until the client closes it.
        var pending: [UInt8] = []
        while let request = readRequest(fd, &pending) {
            state.withLock { $0.requests.append(request) }
            switch handler(request) {
            case .hang:
                state.withLock { $0.held.append(fd) }
                return
            case .status(let status):
                let text = "HTTP/1.1 \(status) Status\r\nContent-Length: 2\r\n\r\nok"
                let sent = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { break }
            case .redirect(let status, let location):
                let text = "HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n"
                _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .raw(let text):
                _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
                return
            }
        }
        close(fd)
    }

    private func readRequest(_ fd: CInt, _ data: inout [UInt8]) -> Request? {
        let terminator = Array("\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 16384)
        var headerEnd: Int?
        while true {
            if let range = data.firstRange(of: terminator) {
                headerEnd = range.upperBound
                break
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return nil }
            data += buffer[..<n]
        }
        let head = Array(data[..<(headerEnd! - 4)])
        let lines = head.split(separator: 0x0A).map { Array($0.last == 0x0D ? $0.dropLast() : $0) }
        let requestLine = lines.first?.split(separator: 0x20) ?? []
        guard requestLine.count >= 2 else { return nil }
        var headers: [(name: String, value: [UInt8])] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            var value = Array(line[(colon + 1)...])
            while value.first == 0x20 { value.removeFirst() }
            headers.append((String(decoding: line[..<colon], as: UTF8.self), value))
        }
        let length =
            headers.first { $0.name.lowercased() == "content-length" }
            .flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } ?? 0
        while data.count < headerEnd! + length {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return nil }
            data += buffer[..<n]
        }
        let body = Array(data[headerEnd!..<(headerEnd! + length)])
        data.removeFirst(headerEnd! + length)
        return Request(
            method: String(decoding: requestLine[0], as: UTF8.self), target: Array(requestLine[1]), headers: headers,
            body: body)
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Undoes percent-encoding, byte for byte.
func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
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
