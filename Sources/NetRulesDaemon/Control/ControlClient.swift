@preconcurrency import Glibc
import NetRulesCore
import NetRulesLinux
import NetRulesSystem

/// A connection to a running daemon's control socket, for `netrules status`, `watch` and `explain`.
///
/// One request per connection, as the server expects: `request` (or `response(to:)`) for the
/// one-line answers, `stream(_:)` for `watch`. Every wait is bounded by `timeout` (except a stream's,
/// which lasts until the daemon closes or the consumer stops) and can be cancelled.
package final class ControlClient: Sendable {
    /// The socket this client is connected to.
    package let path: String
    /// How long a one-shot request may take in all.
    package let timeout: Duration
    private let descriptor: FileDescriptor
    private let wake: WakeEvent

    /// The longest answer line accepted; a status of thousands of facts fits many times over.
    static let maximumAnswerLength = 16 * 1024 * 1024

    private init(path: String, timeout: Duration, descriptor: FileDescriptor, wake: WakeEvent) {
        self.path = path
        self.timeout = timeout
        self.descriptor = descriptor
        self.wake = wake
    }

    /// Connects to the daemon listening at `path`.
    ///
    /// A UNIX-domain connect completes at once, so this does not block (except briefly, retrying,
    /// while a busy daemon's backlog is full).
    /// - Parameters:
    ///   - path: the control socket, usually `DaemonPaths.controlSocket`.
    ///   - timeout: the time limit of each one-shot request on this connection.
    /// - Returns: the client, or nil when no daemon is there (no socket file, or nobody listening).
    /// - Throws: `ControlSocketError` with `.permissionDenied` when the socket refuses this user,
    ///   naming the socket; a `SystemCallError` for other failures.
    package static func connect(path: String, timeout: Duration = .seconds(10)) throws -> ControlClient? {
        let flags = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue)
        let descriptor = FileDescriptor(taking: try sys_socket(AF_UNIX, flags, 0).get(call: "socket"))
        let fd = try descriptor.withFileDescriptor { $0 }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            switch try FileDescriptor.withAddress(path, { sys_connect(fd, $0, $1) }) {
            case .success:
                return ControlClient(path: path, timeout: timeout, descriptor: descriptor, wake: try WakeEvent())
            case .failure(let e) where e.rawValue == ENOENT || e.rawValue == ECONNREFUSED:
                return nil
            case .failure(let e) where e.rawValue == EACCES || e.rawValue == EPERM:
                throw ControlSocketError(
                    .permissionDenied,
                    "permission denied connecting to the netrules daemon's control socket \(path); "
                        + "it runs as another user (try with sudo)",
                    cause: SystemCallError(call: "connect", errno: e))
            case .failure(let e) where e.rawValue == EAGAIN && clock.now < deadline:
                // A full backlog: a UNIX socket does not queue the attempt, so try again shortly.
                usleep(10_000)
            case .failure(let e):
                throw SystemCallError(call: "connect", errno: e)
            }
        }
    }

    /// Sends one request and returns the daemon's one-line answer, blocking the calling thread.
    ///
    /// Use it from threads of your own; from async code, `response(to:)` waits off the pool.
    /// - Throws: `ControlSocketError` (`.protocolViolation`) when the answer is not one JSON line,
    ///   `CancellationError` after `cancel()`, or a `SystemCallError` (`ETIMEDOUT` after `timeout`).
    package func request(_ object: JSONValue) throws -> JSONValue {
        let deadline = ContinuousClock().now + timeout
        try send(object, deadline: deadline)
        var buffer: [UInt8] = []
        guard let line = try readLine(&buffer, deadline: deadline) else {
            throw ControlSocketError(
                .protocolViolation, "the daemon closed the control socket \(path) without answering")
        }
        return try parse(line)
    }

    /// Sends one request and returns the daemon's answer, waiting on a dedicated thread so the
    /// cooperative pool stays free; cancelling the task abandons the request.
    package func response(to object: JSONValue) async throws -> JSONValue {
        try await withTaskCancellationHandler {
            try await DedicatedThread.spawnAndWait { try self.request(object) }
        } onCancel: {
            self.cancel()
        }
    }

    /// Sends one request and returns every answer line, up to the daemon closing the connection
    /// (`history`), waiting on a dedicated thread; the whole exchange is bounded by `timeout`.
    /// - Throws: as `response(to:)`; `ControlSocketError` when the answer exceeds `maximumAnswerLength`.
    package func responses(to object: JSONValue) async throws -> [JSONValue] {
        try await withTaskCancellationHandler {
            try await DedicatedThread.spawnAndWait { try self.requestLines(object) }
        } onCancel: {
            self.cancel()
        }
    }

    private func requestLines(_ object: JSONValue) throws -> [JSONValue] {
        let deadline = ContinuousClock().now + timeout
        try send(object, deadline: deadline)
        var buffer: [UInt8] = []
        var lines: [JSONValue] = []
        var total = 0
        while let line = try readLine(&buffer, deadline: deadline) {
            total += line.count
            guard total <= ControlClient.maximumAnswerLength * 4 else {
                throw ControlSocketError(.protocolViolation, "the daemon's answer on \(path) is too long")
            }
            lines.append(try parse(line))
        }
        return lines
    }

    /// Sends one request and delivers each answer line until the daemon closes the connection or
    /// the consumer stops iterating; either way the connection is closed then.
    package func stream(_ object: JSONValue) -> AsyncThrowingStream<JSONValue, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: JSONValue.self)
        continuation.onTermination = { _ in self.cancel() }
        do {
            try DedicatedThread.spawn {
                // This thread is the connection's last user: closing here is what tells the daemon
                // the watcher left, without waiting for the client object to go away.
                defer { self.descriptor.closeDiscardingError() }
                do {
                    try self.send(object, deadline: ContinuousClock().now + self.timeout)
                    var buffer: [UInt8] = []
                    while let line = try self.readLine(&buffer, deadline: nil) {
                        continuation.yield(try self.parse(line))
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        } catch {
            continuation.finish(throwing: error)
        }
        return stream
    }

    /// Stops whatever request is waiting; the connection is unusable afterwards. Thread-safe.
    package func cancel() {
        wake.signal()
    }

    // MARK: - Internals

    private func send(_ object: JSONValue, deadline: ContinuousClock.Instant) throws {
        let bytes = Array((object.compact + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            if let sent = try bytes[offset...].withUnsafeBytes({ try descriptor.send($0) }) {
                offset += sent
            } else {
                try wait(Int16(POLLOUT), deadline: deadline)
            }
        }
    }

    /// The next line without its newline, or nil when the daemon closed the connection first.
    private func readLine(_ buffer: inout [UInt8], deadline: ContinuousClock.Instant?) throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            guard buffer.count <= ControlClient.maximumAnswerLength else {
                throw ControlSocketError(.protocolViolation, "the daemon's answer on \(path) is too long")
            }
            switch try chunk.withUnsafeMutableBytes({ try descriptor.read(into: $0) }) {
            case .bytes(let count): buffer += chunk[0..<count]
            case .endOfFile: return nil
            case .wouldBlock: try wait(Int16(POLLIN), deadline: deadline)
            }
        }
    }

    private func wait(_ events: Int16, deadline: ContinuousClock.Instant?) throws {
        if let deadline, ContinuousClock.now >= deadline {
            throw SystemCallError(call: "poll", errno: Errno(rawValue: ETIMEDOUT))
        }
        let outcome = try descriptor.withFileDescriptor { fd throws(SystemCallError) in
            try waitReadable(fd, events: events, wake: wake, deadline: deadline)
        }
        switch outcome {
        case .ready: return
        case .woken: throw CancellationError()
        case .timedOut: throw SystemCallError(call: "poll", errno: Errno(rawValue: ETIMEDOUT))
        }
    }

    private func parse(_ line: [UInt8]) throws -> JSONValue {
        do {
            return try JSONValue.parse(line)
        } catch {
            throw ControlSocketError(
                .protocolViolation, "the daemon's answer on \(path) is not JSON: \(error)", cause: error)
        }
    }
}
