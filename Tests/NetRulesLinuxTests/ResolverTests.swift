@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesLinux

@Suite(.timeLimit(.minutes(1)))
struct ResolverTests {
    @Test func parsesNameserversInOrderAndIgnoresComments() {
        let text =
            "# generated\nsearch example.org\nnameserver 192.168.1.1\n;nameserver 9.9.9.9\nnameserver\t2001:db8::53 # v6\n"
        #expect(ResolvConf.nameservers(in: text) == ["192.168.1.1", "2001:db8::53"])
    }

    @Test func rereadsTheFileWhenItIsReplaced() async throws {
        let directory = "/tmp/nrl-resolv-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(directory, 0o700)
        defer { _ = try? TestNamespace.shell("rm", "-rf", directory) }
        let path = directory + "/resolv.conf"
        try write("nameserver 10.0.0.53\n", to: path)

        let facts = ObservedFacts(ResolverObserver(loop: .testLoop, path: path))
        do {
            try await facts.waitFor(.dns, .value(.list(["10.0.0.53"])))
            // Resolvers write a new file and rename it over the old one.
            try write("nameserver 10.0.0.54\nnameserver 10.0.0.55\n", to: path + ".new")
            rename(path + ".new", path)
            try await facts.waitFor(.dns, .value(.list(["10.0.0.54", "10.0.0.55"])))
            unlink(path)
            try await facts.waitFor(.dns, .value(.list([])))
        } catch {
            try? await facts.stop()
            throw error
        }
        try await facts.stop()
    }

    private func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw TestFailure("cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }
}
