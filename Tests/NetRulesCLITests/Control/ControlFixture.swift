import Foundation
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting

@testable import NetRulesDaemon

/// A real `ControlServer` on a socket in a fresh temporary directory, started and stopped without
/// sleeping: the test awaits the server's own "listening" log record.
struct ControlFixture {
    let directory: String
    let path: String
    let queries: FakeDaemonQueries
    private let task: Task<Void, any Error>
    /// Whether `start` made the directory (and `stop` removes it); a caller's own is left alone.
    private var madeDirectory = false

    /// Starts a server and returns once it listens.
    static func start(
        _ queries: FakeDaemonQueries, directory: String? = nil, configure: (inout ControlServer) -> Void = { _ in }
    ) async throws -> ControlFixture {
        let made = directory == nil
        let directory = directory ?? makeTemporaryDirectory()
        let path = directory + "/control.sock"
        let (records, sink) = StreamingLogSink.make()
        var server = ControlServer(
            path: path, queries: queries, loop: .testLoop,
            logger: Logger(label: "test.control", level: .info, sink: sink))
        configure(&server)
        let running = server
        let task = Task { try await running.run() }
        // A server that fails to start ends the log stream, so the wait below cannot hang.
        Task {
            _ = try? await task.value
            sink.finish()
        }
        var listening = false
        for await message in records where message == "control socket listening" {
            listening = true
            break
        }
        if !listening {
            try await task.value
            throw CancellationError()
        }
        var fixture = ControlFixture(directory: directory, path: path, queries: queries, task: task)
        fixture.madeDirectory = made
        return fixture
    }

    /// Cancels the server (its shutdown path) and waits for it to return.
    func stop() async throws {
        task.cancel()
        try await task.value
        // A test's clean-up; a directory that cannot be removed stays under /tmp
        // and changes no result.
        if madeDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A new directory under /tmp, short enough for a socket path (108 bytes).
    static func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/nr-control-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(cString: made!)
    }

    /// Connects, sends `bytes` as they are, and returns everything the server sent until it closed.
    ///
    /// The blocking socket calls run on a dedicated thread, not on the cooperative pool the server
    /// under test needs. `SO_RCVTIMEO` bounds the wait, as a failure guard only.
    static func exchange(_ path: String, sending bytes: [UInt8], halfClose: Bool = true) async throws -> String {
        try await DedicatedThread.spawnAndWait {
            let fd = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
            precondition(fd >= 0)
            defer { close(fd) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connected = try FileDescriptor.withAddress(path) { connect(fd, $0, $1) }
            precondition(connected == 0, "connect failed: \(errno)")
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, CInt(MSG_NOSIGNAL)) }
                if sent <= 0 { break }
                offset += sent
            }
            if halfClose && !bytes.isEmpty { shutdown(fd, CInt(SHUT_WR)) }
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if count <= 0 { break }
                received += chunk[0..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }
}

/// A log sink that hands each message to the test as it is logged.
final class StreamingLogSink: LogSink {
    private let continuation: AsyncStream<String>.Continuation

    private init(_ continuation: AsyncStream<String>.Continuation) {
        self.continuation = continuation
    }

    static func make() -> (AsyncStream<String>, StreamingLogSink) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        return (stream, StreamingLogSink(continuation))
    }

    func write(_ record: Logger.Record) {
        continuation.yield(record.message)
    }

    func finish() {
        continuation.finish()
    }
}
