import NetRulesCore
import Testing

@testable import NetRulesActions

/// `{{time}}` is local time with its offset, `{{time.utc}}` UTC (issue 24, item 6); what is kept or
/// sent as data (the plugin's JSON, like history and the outbox) stays UTC. The offset is pinned
/// here, as `TZ=Europe/Berlin` would give in December, so the test is the same on every machine.
@Suite(.timeLimit(.minutes(1)))
struct LocalTimeActionTests {
    static let berlinInWinter: @Sendable (Int64) -> Int64 = { _ in 3_600 }

    func context() -> ActionContext {
        ActionContext(
            firing: Fixtures.firing(facts: [.ssid: "Office"]), wallTime: "2026-12-02T06:00:10Z", environment: [:],
            utcOffset: Self.berlinInWinter)
    }

    @Test func timeRendersInLocalTimeWithItsOffsetAndTimeUTCInUTC() {
        let rendered = context().render(Fixtures.template("{{time}} {{time.utc}}"))
        #expect(String(decoding: rendered, as: UTF8.self) == "2026-12-02T07:00:10+01:00 2026-12-02T06:00:10Z")
    }

    @Test func theEnvironmentCarriesBoth() {
        let entries = FiringEnvironment.entries(for: context()).map { String(decoding: $0, as: UTF8.self) }
        #expect(entries.contains("NETRULES_TIME=2026-12-02T07:00:10+01:00"))
        #expect(entries.contains("NETRULES_TIME_UTC=2026-12-02T06:00:10Z"))
    }

    @Test func thePluginDocumentKeepsUTC() {
        let document = String(decoding: FiringDocument.render(context()), as: UTF8.self)
        #expect(document.contains(#""time":"2026-12-02T06:00:10Z""#))
    }

    @Test func aWallTimeThatIsNotRFC3339IsShownAsItIs() {
        let context = ActionContext(
            firing: Fixtures.firing(), wallTime: "not a time", environment: [:], utcOffset: Self.berlinInWinter)
        #expect(context.localTime == "not a time")
    }
}
