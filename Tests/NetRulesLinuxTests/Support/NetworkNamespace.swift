@preconcurrency import Glibc
import NetRulesSystem
import Testing

@testable import NetRulesLinux

/// A throwaway network namespace named `nrl-<random>`, driven with `ip`, always deleted.
final class NetworkNamespace: Sendable {
    let name: String

    /// The namespace file an observer joins.
    var path: String { "/run/netns/\(name)" }

    /// Whether this process may create namespaces (root with a working `ip netns`), checked once.
    static let isAvailable: Bool = {
        guard geteuid() == 0, ChildProcess.lookUp("ip") != nil else { return false }
        guard let probe = try? NetworkNamespace() else { return false }
        probe.delete()
        return true
    }()

    /// Why namespace tests skip, shown loudly in the test report.
    static let unavailableReason: Comment =
        "SKIPPED: cannot create network namespaces (needs root and iproute2's `ip netns`); namespace tests did not run"

    private init() throws {
        name = "nrl-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        try NetworkNamespace.run(["ip", "netns", "add", name])
    }

    /// Creates a namespace, runs `body`, and deletes the namespace even when `body` throws.
    static func with<R>(_ body: (NetworkNamespace) async throws -> R) async throws -> R {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        try namespace.ip("link set lo up")
        return try await body(namespace)
    }

    /// Runs `ip -n NAME …` with the words of `command`; throws on a non-zero exit.
    func ip(_ command: String) throws {
        try NetworkNamespace.run(["ip", "-n", name] + command.split(separator: " ").map(String.init))
    }

    /// Runs many `ip` commands in one process (`ip -batch`), as fast as iproute2 can send them.
    func batch(_ commands: [String], force: Bool = false) throws {
        let file = "/tmp/\(name)-batch-\(UInt32.random(in: 0...UInt32.max)).txt"
        let text = commands.joined(separator: "\n") + "\n"
        guard let handle = fopen(file, "w") else { throw TestFailure("cannot write \(file)") }
        fputs(text, handle)
        fclose(handle)
        defer { unlink(file) }
        try NetworkNamespace.run(["ip", "-n", name] + (force ? ["-force"] : []) + ["-batch", file])
    }

    /// Deletes the namespace (and with it every interface inside).
    func delete() {
        _ = try? ChildProcess.run(["ip", "netns", "delete", name])
    }

    private static func run(_ argv: [String]) throws {
        let result = try ChildProcess.run(argv)
        guard result.status == 0 else {
            throw TestFailure("`\(argv.joined(separator: " "))` exited with \(result.status)")
        }
    }
}

/// A test failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
