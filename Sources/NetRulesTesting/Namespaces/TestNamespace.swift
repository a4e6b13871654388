import Foundation
import Glibc
import NetRulesSystem

/// Whether the tests run as root, which network namespaces need.
package let isRoot = getuid() == 0

/// A network namespace that exists for one test, deleted by ``delete()``.
///
/// Sockets belong to the namespace of the thread that creates them, so ``perform(_:)`` (and the
/// probes tests' `executor`) run code on a fresh thread that has joined the namespace; the rest of the
/// test process stays in the host namespace and never sends a packet outside loopback.
package final class TestNamespace: Sendable {
    /// The namespace's name, as `ip netns` knows it.
    package let name: String

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

    /// Deletes the namespace (and the veth ends inside it); safe to call twice.
    package func delete() {
        _ = try? TestNamespace.shell("ip", "netns", "del", name)
    }

    /// Runs `ip -n NAME ARGS…`.
    package func ip(_ arguments: String...) throws {
        try TestNamespace.shell(["ip", "-n", name] + arguments)
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
