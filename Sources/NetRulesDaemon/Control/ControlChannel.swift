@preconcurrency import Glibc
import NetRulesCore
import NetRulesLinux
import NetRulesSystem

/// One accepted connection's reads and writes: lines in, JSON lines out, each wait bounded and
/// done off the cooperative pool (`Readiness.wait`).
struct ControlChannel: Sendable {
    /// What reading a request line produced.
    enum LineOutcome: Equatable {
        /// The line, without its newline.
        case line([UInt8])
        /// More than the limit arrived without a newline.
        case tooLong
        /// Nothing complete arrived in time.
        case timedOut
        /// The client hung up without sending anything.
        case closed
    }

    /// A client that did not take an answer in time.
    struct WriteTimeout: Error, CustomStringConvertible {
        var description: String { "the client did not read its answer in time" }
    }

    let descriptor: FileDescriptor
    /// The event loop that waits for the client.
    let loop: ThreadExecutor
    let writeTimeout: Duration

    init(_ descriptor: FileDescriptor, loop: ThreadExecutor, writeTimeout: Duration) {
        self.descriptor = descriptor
        self.loop = loop
        self.writeTimeout = writeTimeout
    }

    /// Reads up to the first newline, at most `limit` bytes, within `timeout` in total (so a client
    /// sending a byte a second cannot hold the connection). A line ended by the client's hang-up
    /// instead of a newline counts as a line.
    func readLine(limit: Int, timeout: Duration) async throws -> LineOutcome {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
            switch result {
            case .bytes(let count):
                if let newline = chunk[0..<count].firstIndex(of: UInt8(ascii: "\n")) {
                    line += chunk[0..<newline]
                    return line.count > limit ? .tooLong : .line(line)
                }
                line += chunk[0..<count]
                if line.count > limit { return .tooLong }
            case .endOfFile:
                return line.isEmpty ? .closed : .line(line)
            case .wouldBlock:
                let left = clock.now.duration(to: deadline)
                guard left > .zero else { return .timedOut }
                let fd = try descriptor.withFileDescriptor { $0 }
                if try await Readiness.wait(on: loop, for: fd, events: Int16(POLLIN), timeout: left) == .timedOut {
                    return .timedOut
                }
            }
        }
    }

    /// Writes `document` as one line.
    /// - Throws: `WriteTimeout` when the client does not read for `writeTimeout`, `EPIPE` when it left.
    func write(_ document: JSONValue) async throws {
        let bytes = Array((document.compact + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = try bytes[offset...].withUnsafeBytes { try descriptor.send($0) }
            if let sent {
                offset += sent
                continue
            }
            let fd = try descriptor.withFileDescriptor { $0 }
            if try await Readiness.wait(on: loop, for: fd, events: Int16(POLLOUT), timeout: writeTimeout) == .timedOut {
                throw WriteTimeout()
            }
        }
    }

    /// Returns when the client hangs up; anything it sends meanwhile is read and ignored.
    func waitForHangUp() async throws {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let fd = try descriptor.withFileDescriptor { $0 }
            _ = try await Readiness.wait(on: loop, for: fd, events: Int16(POLLIN), timeout: nil)
            do {
                if try scratch.withUnsafeMutableBytes({ try descriptor.read(into: $0) }) == .endOfFile { return }
            } catch is SystemCallError {
                return  // ECONNRESET and the like: gone all the same.
            }
        }
    }
}
