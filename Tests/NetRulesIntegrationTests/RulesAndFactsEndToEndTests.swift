import Foundation
import NetRulesCLI
import NetRulesTesting
import Testing

/// `netrules rules --json` and `facts --json` against the real daemon in a namespace (issue 24,
/// items 3 and 22): each rule's truth and last firing, and every fact key the loaded rules can read,
/// a host nobody probes included.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct RulesAndFactsEndToEndTests {
    static func document(_ arguments: [String]) async throws -> [String: Any] {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: arguments, stdout: out, stderr: err, environment: ["PATH": "/usr/bin:/bin"], loop: .testLoop)
        guard code == 0 else { throw TestError("\(arguments) exited \(code): \(err.text)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any] else {
            throw TestError("not a JSON object: \(out.text)")
        }
        return object
    }

    @Test func rulesAndFactsFromTheRunningDaemon() async throws {
        try await Testbed.run { testbed in
            let rules = try testbed.write(
                """
                version: 1
                hosts:
                  peer: { address: \(Testbed.peerAddress), interval: 1s }
                  idle: { address: 192.0.2.99 }
                rules:
                  - name: peer-up
                    when: { reachable: peer }
                    do:
                      - run: "true"
                  - name: never-known
                    when: { fact: { key: x.nobody, equals: z } }
                    do:
                      - run: "true"

                """, to: "rules.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            let socket = ["--socket", testbed.path("control.sock")]

            var rows: [[String: Any]] = []
            let deadline = ContinuousClock.now + .seconds(20)
            while true {
                rows = try await Self.document(["rules", "--json"] + socket)["rules"] as? [[String: Any]] ?? []
                if rows.first?["truth"] as? String == "true", rows.first?["last_firing"] is [String: Any] { break }
                guard ContinuousClock.now < deadline else { throw TestError("peer-up never fired: \(rows)") }
                try await Task.sleep(for: pollInterval)
            }
            #expect(rows.map { $0["name"] as? String } == ["peer-up", "never-known"])
            #expect((rows.first?["last_firing"] as? [String: Any])?["edge"] as? String == "enter")
            #expect(rows.last?["truth"] as? String == "unknown")
            #expect((rows.last?["state"] as? [String: Any])?["hold"] is NSNull)

            let facts = try await Self.document(["facts", "--json"] + socket)["facts"] as? [[String: Any]] ?? []
            func row(_ key: String) -> [String: Any]? { facts.first { $0["key"] as? String == key } }
            #expect(row("hosts.peer")?["state"] as? String == "value")
            #expect(row("hosts.peer")?["value"] as? String == "reachable")
            #expect(row("hosts.idle")?["state"] as? String == "unknown", "\(facts)")
            #expect(row("hosts.idle")?["source"] as? String == "host probes")
            #expect(row("x.nobody")?["state"] as? String == "unknown")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
