import NetRulesCore
import Testing

@testable import NetRulesActions

/// A firing's environment is four lists merged by name, the later winning: the daemon's own, the
/// `NETRULES_RULE`/`EDGE`/`TIME` variables, the facts (made once per store: `RenderedFacts`), and
/// the action's `env:`. Its input document carries the same facts.
@Suite(.timeLimit(.minutes(1)))
struct FiringEnvironmentTests {
    static func strings(_ entries: [[UInt8]]) -> [String] {
        entries.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func eachNameOnceSortedAndTheLaterListWins() {
        let firing = Fixtures.firing(facts: ["ssid": "Office", "vpn": nil])
        let context = Fixtures.context(
            firing,
            environment: [
                "PATH": "/usr/bin:/bin", "NETRULES_SSID": "from the daemon", "NETRULES_RULE": "from the daemon",
                "ZZ": "kept",
            ])
        let entries = Self.strings(
            FiringEnvironment.entries(
                for: context, extra: [(name: "NETRULES_SSID", value: Array("from env:".utf8)), (name: "A", value: [])]))
        #expect(
            entries == [
                "A=", "NETRULES_EDGE=enter", "NETRULES_RULE=office", "NETRULES_SSID=from env:",
                "NETRULES_TIME=2025-01-02T03:04:05Z", "NETRULES_TIME_UTC=2025-01-02T03:04:05Z",
                "NETRULES_VPN=", "PATH=/usr/bin:/bin", "ZZ=kept",
            ])
    }

    @Test func ofTwoFactsWithOneVariableNameTheGreaterKeyWins() {
        // `a.b` and `a_b` are both NETRULES_A_B; `a_b` sorts after `a.b`.
        let firing = Fixtures.firing(facts: ["a_b": "underscore", "a.b": "dot"])
        let entries = Self.strings(FiringEnvironment.entries(for: Fixtures.context(firing, environment: [:])))
        #expect(entries.filter { $0.hasPrefix("NETRULES_A_B=") } == ["NETRULES_A_B=underscore"])
    }

    @Test func theFiringsOfOneStoreShareTheirRenderedFactsAndAnotherStoreGetsItsOwn() {
        let first = Fixtures.firing(rule: "one", facts: ["ssid": "Office"])
        var second = first
        second.rule = "two"
        let shared = RenderedFacts(first.facts)
        let context = ActionContext(
            firing: second, wallTime: "2025-01-02T03:04:05Z", environment: [:],
            renderedFacts: shared, utcOffset: { _ in 0 })
        #expect(context.renderedFacts === shared)

        let other = Fixtures.firing(rule: "three", facts: ["ssid": "Home"])
        let otherContext = ActionContext(
            firing: other, wallTime: "2025-01-02T03:04:05Z", environment: [:],
            renderedFacts: shared, utcOffset: { _ in 0 })
        #expect(otherContext.renderedFacts !== shared)
        #expect(Self.strings(FiringEnvironment.entries(for: otherContext)).contains("NETRULES_SSID=Home"))
        let document = String(decoding: FiringDocument.render(otherContext), as: UTF8.self)
        #expect(document.contains(#""facts":{"ssid":"Home"}"#))
    }

    @Test func theDocumentSplicesTheFactsBetweenItsOwnMembersAndParses() throws {
        let firing = Fixtures.firing(facts: ["ssid": .bytes([0x4F, 0xFF]), "vpn": nil])
        let context = Fixtures.context(firing, environment: [:])
        let bytes = FiringDocument.render(context, options: .string("{{ssid}}"))
        #expect(bytes.last == UInt8(ascii: "\n"))
        let document = try JSONValue.parse(Array(bytes.dropLast()))
        #expect(
            document.compact
                == #"{"version":1,"rule":"office","edge":"enter","time":"2025-01-02T03:04:05Z","#
                + #""facts":{"ssid":"O\udcff","vpn":null},"facts_hex":{"ssid":"4fff"},"options":"O\udcff"}"#)
    }
}
