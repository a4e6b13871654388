import Foundation
import Glibc
import NetRulesSystem
import Testing

/// Whether the tests run as root, which network namespaces need.
package let isRoot = getuid() == 0

/// Why namespace tests skip, shown loudly in the test report.
package let namespacesUnavailableReason: Comment =
    "SKIPPED: cannot create network namespaces (needs root and iproute2's `ip netns`); namespace tests did not run"

/// A network namespace that exists for one test, deleted by ``delete()``.
///
/// Sockets belong to the namespace of the thread that creates them, so ``perform(_:)`` (and the
/// probes tests' `executor`) run code on a fresh thread that has joined the namespace; the rest of the
/// test process stays in the host namespace and never sends a packet outside loopback.
package final class TestNamespace: Sendable {
    /// The namespace's name, as `ip netns` knows it.
    package let name: String

    /// The namespace file a thread or an observer joins.
    package var path: String { "/run/netns/\(name)" }

    /// Whether this process may create namespaces (root with a working `ip netns`), checked once.
    package static let isAvailable: Bool = {
        // Any failure to create a namespace means namespaces are unavailable, and namespace tests
        // skip loudly with namespacesUnavailableReason.
        guard isRoot, let probe = try? create(prefix: "nrt") else { return false }
        probe.delete()
        return true
    }()

    private init(name: String) {
        self.name = name
    }

    /// Creates a namespace named `PREFIX-<random>` with its loopback up.
    ///
    /// Each suite uses its own prefix (`nrp` probes, `nre` end-to-end) so a leftover namespace
    /// says which suite leaked it.
    package static func create(prefix: String = "nrp") throws -> TestNamespace {
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let namespace = TestNamespace(name: "\(prefix)-\(suffix)")
        try shell("ip", "netns", "add", namespace.name)
        try namespace.ip("link", "set", "lo", "up")
        return namespace
    }

    /// Creates a namespace named `PREFIX-<random>` with its loopback up, runs `body`, and deletes
    /// the namespace even when `body` throws.
    package static func with<R>(prefix: String, _ body: (TestNamespace) async throws -> R) async throws -> R {
        let namespace = try create(prefix: prefix)
        defer { namespace.delete() }
        return try await body(namespace)
    }

    /// Deletes the namespace (and the veth ends inside it); safe to call twice.
    package func delete() {
        // Deleting is documented as safe to call twice: a namespace already gone is the goal.
        _ = try? TestNamespace.shell("ip", "netns", "del", name)
    }

    /// Runs `ip -n NAME ARGS…`.
    package func ip(_ arguments: String...) throws {
        try TestNamespace.shell(["ip", "-n", name] + arguments)
    }

    /// Runs `ip -n NAME …` with the space-separated words of `command` (`"route add default via 10.9.0.1"`).
    package func ip(words command: String) throws {
        try TestNamespace.shell(["ip", "-n", name] + command.split(separator: " ").map(String.init))
    }

    /// Adds the veth pair `a`–`b`, both ends in this namespace, `b` up (so `a` has carrier once it
    /// is up).
    package func addVethPair(_ a: String, _ b: String) throws {
        try ip("link", "add", a, "type", "veth", "peer", "name", b)
        try ip("link", "set", b, "up")
    }

    /// Runs many `ip` commands in one process (`ip -batch`), as fast as iproute2 can send them.
    package func batch(_ commands: [String], force: Bool = false) throws {
        let file = "/tmp/\(name)-batch-\(UInt32.random(in: 0...UInt32.max)).txt"
        guard let handle = fopen(file, "w") else { throw TestError("cannot write \(file)") }
        fputs(commands.joined(separator: "\n") + "\n", handle)
        fclose(handle)
        defer { unlink(file) }
        try TestNamespace.shell(["ip", "-n", name] + (force ? ["-force"] : []) + ["-batch", file])
    }

    /// Sets a sysctl inside this namespace only.
    package func sysctl(_ key: String, _ value: String) throws {
        try TestNamespace.shell("ip", "netns", "exec", name, "sysctl", "-qw", "\(key)=\(value)")
    }

    /// Runs `body` on a fresh thread inside the namespace and returns its result.
    package func perform<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let path = "/var/run/netns/\(name)"
        let thread = Thread {
            defer { done.signal() }
            box.result = Result {
                try TestNamespace.join(path); return try body()
            }
        }
        thread.start()
        done.wait()
        return try box.result!.get()
    }

    /// Moves the calling thread into the namespace at `path` (`/var/run/netns/NAME`) for good.
    ///
    /// Only for a thread made for this purpose: a thread of the cooperative pool must never
    /// change namespace, or later tasks would run in it.
    package static func join(_ path: String) throws {
        do {
            try DedicatedThread.joinNetworkNamespace(path)
        } catch {
            throw TestError("\(error.call) \(path): errno \(error.errno.rawValue)")
        }
    }

    /// Runs a command found on `PATH` and returns its output; throws when it exits non-zero.
    @discardableResult
    package static func shell(_ arguments: String...) throws -> String {
        try shell(arguments)
    }

    /// Runs a command found on `PATH` and returns its output; throws when it exits non-zero.
    @discardableResult
    package static func shell(_ arguments: [String]) throws -> String {
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

private final class ResultBox<T>: @unchecked Sendable {
    // Written by one thread before it signals the semaphore the reader waits on.
    var result: Result<T, any Error>?
}
