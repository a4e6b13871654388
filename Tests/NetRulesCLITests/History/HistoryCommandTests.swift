import Foundation
import NetRulesCLI
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesSystem
import NetRulesTesting
import Testing

/// `netrules history` in-process: through a real control socket to a fake daemon, and from the
/// state directory when no daemon answers.
@Suite(.timeLimit(.minutes(1)))
struct HistoryCommandTests {
    func run(_ arguments: [String]) async -> CommandTests.Outcome {
        await CommandTests.run(["history"] + arguments, environment: [:])
    }

    static let rules = "version: 1\nrules: []\n"

    func withDaemon(history: [HistoryEntry]?, _ body: (String) async throws -> Void) async throws {
        let queries = FakeDaemonQueries(yaml: Self.rules, facts: [:])
        await queries.setHistory(history)
        let fixture = try await ControlFixture.start(queries)
        defer { Task { try? await fixture.stop() } }
        try await body(fixture.path)
        try await fixture.stop()
    }

    func json(_ entries: [HistoryEntry]) -> String {
        entries.map { $0.document.compact + "\n" }.joined()
    }

    @Test func jsonFromTheDaemonIsOneLinePerFiringOldestFirst() async throws {
        try await withDaemon(history: HistoryFixtures.entries) { socket in
            let all = await run(["--json", "--socket", socket])
            #expect(all.code == 0, "\(all.stderr)")
            #expect(all.stderr == "")
            #expect(all.stdout == json(HistoryFixtures.entries))

            let text = await run(["--socket", socket])
            #expect(text.code == 0)
            #expect(
                text.stdout == HistoryText.render(HistoryFixtures.entries) { SystemTimeZone.utcOffset(atUnixTime: $0) })

            let office = await run(["--json", "--rule", "office-check-in", "--limit", "1", "--socket", socket])
            #expect(office.stdout == json([HistoryFixtures.entries[2]]))

            let recent = await run(["--json", "--since", "45m", "--socket", socket])
            #expect(recent.stdout == json(Array(HistoryFixtures.entries.suffix(2))))

            // A name neither loaded nor in the history is an error (ClientViewsTests: with a suggestion).
            let gone = await run(["--rule", "never-existed", "--socket", socket])
            #expect(gone.code == 1)
            #expect(gone.stdout == "")
            #expect(gone.stderr.hasPrefix("Error: no rule named 'never-existed' is loaded or in the history"))
        }
    }

    @Test func withoutADaemonItReadsTheStateDirectoryAndSaysSo() async throws {
        let directory = TemporaryDirectory("netrules-history-cli")
        defer { directory.remove() }
        var history = FiringHistory(directory: directory.path, limit: 100)
        for entry in HistoryFixtures.entries { history.record(entry) }
        await history.written()
        let socket = directory.file("none.sock")

        let outcome = await run(["--json", "--limit", "all", "--state-dir", directory.path, "--socket", socket])
        #expect(outcome.code == 0)
        #expect(outcome.stdout == json(HistoryFixtures.entries))
        #expect(
            outcome.stderr
                == "note: no netrules daemon answered on \(socket): no such socket; history read from \(directory.path)/history.jsonl\n"
        )

        let empty = TemporaryDirectory("netrules-history-cli")
        defer { empty.remove() }
        let nothing = await run(["--state-dir", empty.path])
        #expect(nothing.code == 0)
        #expect(nothing.stdout == "")
        #expect(nothing.stderr.contains("no history file at \(empty.path)/history.jsonl"))
    }

    @Test(arguments: [["--limit", "0"], ["--limit", "many"], ["--since", "yesterday"], ["--since", "200y"]])
    func invalidOptionsAreUsageErrors(_ arguments: [String]) async {
        let outcome = await run(arguments + ["--socket", "/tmp/netrules-no-such.sock"])
        #expect(outcome.code == 64)
        #expect(outcome.stderr.hasPrefix("Error: "))
        #expect(outcome.stdout == "")
    }

    @Test func aDaemonWithoutHistorySaysSo() async throws {
        try await withDaemon(history: nil) { socket in
            let outcome = await run(["--socket", socket])
            #expect(outcome.code == 1)
            #expect(outcome.stderr.contains("keeps no history"))
        }
    }
}
