import Foundation
import NetRulesConfig
import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(2)))
struct TimelineTests {
    static func simulate(rules: String, timeline: String) throws -> [String] {
        let loaded = RuleLoader().load([RuleSource(file: "r.yaml", bytes: Array(rules.utf8))])
        #expect(!loaded.hasErrors, "\(loaded.renderedDiagnostics())")
        let (parsed, diagnostics) = Timeline.parse(Array(timeline.utf8), file: "t.yaml")
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let t = try #require(parsed)
        // The shipped timelines start on a Monday at 00:00 (simulate's default, here in UTC).
        let monday = daysSinceEpoch(year: 2026, month: 12, day: 7) * 86_400
        return t.replay(
            rules: loaded.ruleSet.rules, places: loaded.ruleSet.places,
            clock: LocalClock(origin: monday, utcOffset: { _ in 0 })
        ).firings
            .map {
                "\($0.rule):\($0.edge)@\(DurationSyntax.format($0.at.offset))"
            }
    }

    @Test func holdsCompleteAfterTheLastStep() throws {
        let firings = try Self.simulate(
            rules: "version: 1\nrules:\n  - { name: r, when: { ssid: A }, for: 30s, do: [ { run: x } ] }\n",
            timeline: "- at: 0s\n  facts: { ssid: B }\n- at: 1m\n  facts: { ssid: A }\n")
        #expect(firings == ["r:enter@1m30s"])
    }

    @Test func nullIsAbsentAndUnknownForgets() throws {
        let firings = try Self.simulate(
            rules: "version: 1\nrules:\n  - { name: r, when: { ssid: A }, on: [enter, exit], do: [ { run: x } ] }\n",
            timeline: """
                - at: 0s
                  facts: { ssid: A }
                - at: 1s
                  unknown: [ssid]
                - at: 2s
                  facts: { ssid: A }
                - at: 3s
                  facts: { ssid: null }
                """)
        #expect(firings == ["r:enter@0s", "r:exit@3s"])
    }

    @Test func outOfOrderStepsAreErrors() {
        let (timeline, diagnostics) = Timeline.parse(
            Array("- at: 1m\n  facts: { a: b }\n- at: 10s\n  facts: { a: c }\n".utf8), file: "t.yaml")
        #expect(timeline == nil)
        #expect(
            diagnostics.map(\.description) == [
                "t.yaml:3:7: error: steps must be in time order; 10s comes after 1m"
            ])
    }

    @Test(arguments: [
        ("office-check-in", "office-day", ["office-check-in:enter@8h50m40s"]),
        (
            "office-check-in", "office-week",
            [
                "office-check-in:enter@8h55m10s", "office-check-in:enter@1d7h40m10s",
                "office-check-in:enter@2d9h20m10s",
                "office-check-in:enter@3d8h5m10s", "office-check-in:enter@4d10h30m10s",
            ]
        ),
        ("vpn-away-from-home", "leaving-home", ["vpn-away-from-home:enter@30m5s", "vpn-away-from-home:exit@3h5s"]),
        (
            "captive-portal", "portal-and-intranet",
            ["captive-portal-notice:enter@0s", "captive-portal-notice:exit@2m"]
        ),
        (
            "intranet-down", "portal-and-intranet",
            [
                "intranet-down:enter@30s", "intranet-down:exit@3m30s", "intranet-down:enter@10m30s",
                "intranet-down:exit@12m30s",
            ]
        ),
    ])
    func shippedTimelines(rules: String, timeline: String, expected: [String]) throws {
        let root = RuleLoaderTests.repositoryRoot
        let r = try String(contentsOf: root.appendingPathComponent("rules/\(rules).yaml"), encoding: .utf8)
        let t = try String(
            contentsOf: root.appendingPathComponent("examples/timelines/\(timeline).yaml"), encoding: .utf8)
        #expect(try Self.simulate(rules: r, timeline: t) == expected)
    }
}
