@preconcurrency import Glibc
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// The figures of `scripts/bench-actions`; enabled by `NETRULES_BENCH=1` because they take a while
/// and mean something only on an otherwise idle machine.
@Suite(.timeLimit(.minutes(5)), .serialized)
struct ActionBenchmarkTests {
    static var enabled: Bool { getenv("NETRULES_BENCH") != nil }

    @Test(.enabled(if: enabled, "set NETRULES_BENCH=1 (scripts/bench-actions) to measure"))
    func spawnToExitOfATrivialRunAction() async {
        let figures = await ActionBenchmarks.spawnToExit(count: 1000)
        print("bench actions: spawn-to-exit of run 'true': \(figures)")
        #expect(figures.count == 1000)
    }

    @Test(.enabled(if: enabled, "set NETRULES_BENCH=1 (scripts/bench-actions) to measure"))
    func runActionDirectAndThroughTheShell() async {
        // Interleaved in rounds, so a change in machine load hits both alike.
        var direct: [ActionBenchmarks.Figures] = []
        var shell: [ActionBenchmarks.Figures] = []
        for _ in 0..<5 {
            direct.append(await ActionBenchmarks.runAction(count: 200, direct: true))
            shell.append(await ActionBenchmarks.runAction(count: 200, direct: false))
        }
        for (name, rounds) in [("direct", direct), ("/bin/sh -c", shell)] {
            print("bench actions: run '/bin/true {{rule}}' \(name), per round: \(rounds.map(\.description))")
        }
        #expect(direct.allSatisfy { $0.count == 200 } && shell.allSatisfy { $0.count == 200 })
    }

    @Test(.enabled(if: enabled, "set NETRULES_BENCH=1 (scripts/bench-actions) to measure"))
    func webhookThroughputToALoopbackServer() async throws {
        let server = try TestHTTPServer { _ in .status(204) }
        let state = TemporaryDirectory()
        let figures = try await ActionBenchmarks.webhookThroughput(
            url: server.url("/hook"), count: 2000, stateDirectory: state.path)
        print("bench actions: webhook deliveries (outbox fsync + POST + unlink): \(figures)")
        #expect(figures.count == 2000)
        #expect(server.requests.count == 2000)
    }
}
