import Foundation
import Glibc
@testable import NetRulesHTTP

/// Whether the tests run as root, which network namespaces need.
let isRoot = getuid() == 0

/// A network namespace named `nrp-…` that exists for one test, deleted by ``delete()``.
///
/// Sockets belong to the namespace of the thread that creates them, so ``perform(_:)`` and
/// ``executor`` run code on a fresh thread that has joined the namespace; the rest of the
/// test process stays in the host namespace and never sends a packet outside loopback.
final class TestNamespace: Sendable {
    let name: String

    private init(name: String) {
        self.name = name
    }

    /// Creates a namespace with a random `nrp-` name and its loopback up.
    static func create() throws -> TestNamespace {
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let namespace = TestNamespace(name: "nrp-\(suffix)")
        try shell("ip", "netns", "add", namespace.name)
        try namespace.ip("link", "set", "lo", "up")
        return namespace
    }

    /// Deletes the namespace (and the veth ends inside it); safe to call twice.
    func delete() {
        _ = try? TestNamespace.shell("ip", "netns", "del", name)
    }

    /// Runs `ip -n NAME ARGS…`.
    func ip(_ arguments: String...) throws {
        try TestNamespace.shell(["ip", "-n", name] + arguments)
    }

    /// Sets a sysctl inside this namespace only.
    func sysctl(_ key: String, _ value: String) throws {
        try TestNamespace.shell("ip", "netns", "exec", name, "sysctl", "-qw", "\(key)=\(value)")
    }

    /// Runs `body` on a fresh thread inside the namespace and returns its result.
    func perform<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let path = "/var/run/netns/\(name)"
        let thread = Thread {
            defer { done.signal() }
            box.result = Result { try TestNamespace.enter(path); return try body() }
        }
        thread.start()
        done.wait()
        return try box.result!.get()
    }

    /// An executor whose every job runs on a new thread inside the namespace.
    var executor: BlockingExecutor {
        let path = "/var/run/netns/\(name)"
        return BlockingExecutor { job in
            let thread = Thread {
                do { try TestNamespace.enter(path) } catch { fatalError("setns: \(error)") }
                job()
            }
            thread.start()
        }
    }

    private static func enter(_ path: String) throws {
        // Glibc's module does not import setns(2) (it needs _GNU_SOURCE); look it up instead.
        typealias SetNS = @convention(c) (CInt, CInt) -> CInt
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { throw TestError("no setns") }
        let setns = unsafeBitCast(symbol, to: SetNS.self)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestError("open \(path): errno \(errno)") }
        defer { close(fd) }
        let cloneNewNet: CInt = 0x4000_0000  // CLONE_NEWNET from <sched.h>, not imported either.
        guard setns(fd, cloneNewNet) == 0 else { throw TestError("setns \(path): errno \(errno)") }
    }

    @discardableResult
    static func shell(_ arguments: String...) throws -> String {
        try shell(arguments)
    }

    @discardableResult
    static func shell(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestError("\(arguments.joined(separator: " ")) failed: \(output)")
        }
        return output
    }
}

/// Two namespaces, `client` (10.77.0.1/24 on `nrc0`) and `server` (10.77.0.2/24 on `nrs0`), joined by a veth pair.
///
/// The addresses exist only inside these namespaces. The client gets a default route via the
/// server unless `defaultRoute` is false (the "no route at all" case).
final class TestNetwork: Sendable {
    let client: TestNamespace
    let server: TestNamespace
    static let clientAddress = "10.77.0.1"
    static let serverAddress = "10.77.0.2"

    init(defaultRoute: Bool = true) throws {
        client = try TestNamespace.create()
        do {
            server = try TestNamespace.create()
        } catch {
            client.delete()
            throw error
        }
        do {
            try client.ip("link", "add", "nrc0", "type", "veth", "peer", "name", "nrs0", "netns", server.name)
            try client.ip("addr", "add", "\(Self.clientAddress)/24", "dev", "nrc0")
            try server.ip("addr", "add", "\(Self.serverAddress)/24", "dev", "nrs0")
            try client.ip("link", "set", "nrc0", "up")
            try server.ip("link", "set", "nrs0", "up")
            if defaultRoute {
                try client.ip("route", "add", "default", "via", Self.serverAddress)
            }
        } catch {
            delete()
            throw error
        }
    }

    func delete() {
        client.delete()
        server.delete()
    }
}

private final class ResultBox<T>: @unchecked Sendable {
    // Written by one thread before it signals the semaphore the reader waits on.
    var result: Result<T, any Error>?
}
