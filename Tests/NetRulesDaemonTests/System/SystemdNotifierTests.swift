@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// A datagram socket bound where systemd's would be, reading what the notifier sends.
private final class NotifyListener {
    let fd: CInt
    /// The value for `NOTIFY_SOCKET`.
    let notifySocket: String

    /// Binds a socket file at `path`, or an abstract name when `abstract` is set.
    init(path: String? = nil, abstract: String? = nil) throws {
        let fd = socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        self.fd = fd
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8] = path.map { Array($0.utf8) } ?? ([0] + Array(abstract!.utf8))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (path == nil ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(result == 0, "bind failed: \(errno)")
        notifySocket = path ?? "@" + abstract!
    }

    /// The next datagram, waiting at most 5 s (a failure guard).
    func receive() throws -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 5_000) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    deinit { close(fd) }
}

@Suite(.timeLimit(.minutes(1)))
struct SystemdNotifierTests {
    @Test func withoutNotifySocketEverythingIsANoOp() throws {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        try notifier.ready(status: "Watching")
        try notifier.stopping()
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]).destination == nil)
    }

    @Test func parsesPathAbstractAndUnsupportedValues() {
        #expect(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"]).destination
                == .path("/run/systemd/notify"))
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@sd-notify"]).destination == .abstract("sd-notify"))
        #expect(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": "vsock:2:1234"]).destination == .unsupported("vsock:2:1234"))
    }

    @Test func sendsDatagramsToASocketFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let listener = try NotifyListener(path: directory.file("notify"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket])
        #expect(notifier.isEnabled)

        try notifier.ready(status: "Watching 3 rules\nfrom /etc/netrules")
        #expect(try listener.receive() == "READY=1\nSTATUS=Watching 3 rules from /etc/netrules")
        try notifier.ready()
        #expect(try listener.receive() == "READY=1")
        try notifier.status("Reloaded")
        #expect(try listener.receive() == "STATUS=Reloaded")
        try notifier.stopping()
        #expect(try listener.receive() == "STOPPING=1")

        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let before = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        try notifier.reloading()
        let reloading = try #require(try listener.receive())
        let lines = reloading.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == "RELOADING=1")
        let microseconds = try #require(UInt64(lines[1].dropFirst("MONOTONIC_USEC=".count)))
        #expect(lines[1].hasPrefix("MONOTONIC_USEC="))
        #expect(microseconds >= before && microseconds < before + 10_000_000)
    }

    @Test func sendsDatagramsToAnAbstractSocket() throws {
        let listener = try NotifyListener(abstract: "netrules-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket])
        try notifier.ready(status: "up")
        #expect(try listener.receive() == "READY=1\nSTATUS=up")
    }

    @Test func failuresAreReportedNotSwallowed() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let sockets = openDescriptorCount(matching: "socket:")
        let missing = SystemdNotifier(environment: ["NOTIFY_SOCKET": directory.file("nobody-listens")])
        #expect(throws: SystemCallError.self) { try missing.ready() }
        let tooLong = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)])
        #expect(throws: SystemCallError(call: "sendto", errno: Errno(rawValue: ENAMETOOLONG))) { try tooLong.ready() }
        let vsock = SystemdNotifier(environment: ["NOTIFY_SOCKET": "vsock:2:1234"])
        #expect(throws: SystemCallError.self) { try vsock.stopping() }
        #expect(openDescriptorCount(matching: "socket:") == sockets, "every socket is closed, also after a failure")
    }
}
