import NetRulesConfig
import NetRulesCore
import Testing

/// `expect:` in a timeline: what it parses to, and which firings meet it.
@Suite(.timeLimit(.minutes(1)))
struct TimelineExpectationTests {
    static let rules = """
        version: 1
        rules:
          - { name: office, when: { ssid: Office }, on: [enter, exit], do: [ { run: x } ] }
          - { name: home, when: { ssid: Home }, do: [ { run: x } ] }

        """

    static let steps = """
        steps:
          - at: 0s
            facts: { ssid: Home }
          - at: 1d8h
            facts: { ssid: Office }
          - at: 1d17h
            facts: { ssid: Home }

        """

    /// Replays `expect` (the lines after `expect:`) and returns the reports, one line each.
    static func unmet(_ expect: String) throws -> [String] {
        let loaded = RuleLoader().load([RuleSource(file: "r.yaml", bytes: Array(rules.utf8))])
        let (parsed, diagnostics) = Timeline.parse(Array((steps + "expect:\n" + expect).utf8), file: "t.yaml")
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let timeline = try #require(parsed)
        let firings = timeline.replay(rules: loaded.ruleSet.rules)
        return timeline.unmetExpectations(firings, file: "t.yaml").map { d in
            d.description + (d.hint.map { " [\($0)]" } ?? "")
        }
    }

    @Test func firingsThatHappenMeetTheirExpectations() throws {
        let unmet = try Self.unmet(
            """
              - { at: 0s, fires: home }
              - { at: 1d8h, fires: office, edge: enter }
              - { between: [1d, 2d], fires: office, count: 2 }
              - { between: [1d8h1s, 1d16h], fires: none }
              - { between: [2d, 7d], fires: none }
            """)
        #expect(unmet == [])
    }

    @Test func aFiringExpectedAndNotSeenIsReportedAtItsLine() throws {
        let unmet = try Self.unmet(
            """
              - { at: 1d9h, fires: office, edge: enter }
              - { at: 1d8h, fires: office, edge: exit }
              - { between: [3d, 4d], fires: home }
            """)
        #expect(
            unmet == [
                "t.yaml:9:5: error: expected 'office' to fire enter at 1d9h, and it did not fire "
                    + "[it fired: 'office' enter at 1d8h, 'office' exit at 1d17h]",
                "t.yaml:10:5: error: expected 'office' to fire exit at 1d8h, and it did not fire "
                    + "[it fired: 'office' enter at 1d8h, 'office' exit at 1d17h]",
                "t.yaml:11:5: error: expected 'home' to fire between 3d and 4d, and it did not fire "
                    + "[it fired: 'home' enter at 0s, 'home' enter at 1d17h]",
            ])
    }

    @Test func aFiringSeenAndNotExpectedIsReportedAtItsLine() throws {
        let unmet = try Self.unmet(
            """
              - { between: [1d, 2d], fires: none }
              - { between: [0s, 2d], fires: office, count: 1 }
            """)
        #expect(
            unmet == [
                "t.yaml:9:5: error: expected no firing between 1d and 2d, but 'office' enter at 1d8h, "
                    + "'office' exit at 1d17h, 'home' enter at 1d17h fired",
                "t.yaml:10:5: error: expected 'office' to fire once between 0s and 2d, but it fired 2 times "
                    + "['office' enter at 1d8h, 'office' exit at 1d17h]",
            ])
    }

    /// `count: 0` (issue 37, item 4): the rule, on that edge if given, never fires in the window.
    @Test func countZeroExpectsTheRuleNeverToFire() throws {
        #expect(
            try Self.unmet(
                """
                  - { between: [0s, 1d], fires: office, count: 0 }
                  - { between: [0s, 2d], fires: home, edge: exit, count: 0 }
                """) == [])
        #expect(
            try Self.unmet(
                """
                  - { between: [1d, 2d], fires: office, edge: exit, count: 0 }
                  - { at: 0s, fires: home, count: 0 }
                """) == [
                    "t.yaml:9:5: error: expected 'office' never to fire exit between 1d and 2d, but it fired once "
                        + "['office' exit at 1d17h]",
                    "t.yaml:10:5: error: expected 'home' never to fire at 0s, but it fired once ['home' enter at 0s]",
                ])
    }

    @Test func aPlainListOfStepsHasNoExpectations() throws {
        let (parsed, diagnostics) = Timeline.parse(Array("- at: 0s\n  facts: { ssid: A }\n".utf8), file: "t.yaml")
        #expect(diagnostics.isEmpty)
        #expect(try #require(parsed).expectations.isEmpty)
    }

    @Test(arguments: [
        (
            "  - { at: 1h, between: [1h, 2h], fires: office }\n",
            "t.yaml:9:5: error: an expectation has either 'at' or 'between', not both"
        ),
        ("  - { fires: office }\n", "t.yaml:9:5: error: the expectation has no 'at' or 'between'"),
        ("  - { at: 1h }\n", "t.yaml:9:5: error: the expectation has no 'fires'"),
        ("  - { at: 1h, fires: office, edge: up }\n", "t.yaml:9:36: error: 'up' is not one of 'enter', 'exit'"),
        (
            "  - { between: [2h, 1h], fires: office }\n",
            "t.yaml:9:21: error: the window ends before it starts; 1h comes before 2h"
        ),
        ("  - { between: [2h], fires: office }\n", "t.yaml:9:16: error: 'between' takes two times, '[from, to]'"),
        (
            "  - { at: 1h, fires: none, edge: enter }\n",
            "t.yaml:9:5: error: 'fires: none' expects no firing at all; 'edge' and 'count' need a rule"
        ),
        ("  - { at: 1h, fires: office, when: 2h }\n", "t.yaml:9:30: error: unknown key 'when' in an expectation"),
        ("  - { at: 1h, fires: office, count: -1 }\n", "t.yaml:9:37: error: -1 is out of range (0…1000000)"),
    ])
    func malformedExpectationsAreErrors(expect: String, first: String) {
        let (parsed, diagnostics) = Timeline.parse(Array((Self.steps + "expect:\n" + expect).utf8), file: "t.yaml")
        #expect(parsed == nil)
        #expect(diagnostics.first?.description.hasPrefix(first) == true, "\(diagnostics.map(\.description))")
    }

    @Test func aMappingNeedsSteps() {
        let (parsed, diagnostics) = Timeline.parse(Array("expect: []\n".utf8), file: "t.yaml")
        #expect(parsed == nil)
        #expect(diagnostics.map(\.description) == ["t.yaml:1:1: error: the timeline has no 'steps'"])
    }
}
