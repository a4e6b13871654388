import NetRulesCore
import NetRulesTesting
import Testing

/// `time:` windows and `once_per:` on a local clock (issue 12, item 1).
@Suite(.timeLimit(.minutes(1)))
struct CalendarTests {
    /// Monday 2026-12-07 00:00 UTC.
    static let monday = daysSinceEpoch(year: 2026, month: 12, day: 7) * 86_400

    static func window(_ from: Int64, _ to: Int64, days: Set<Int> = Set(0..<7)) -> TimeCondition {
        TimeCondition(from: from * 3600, to: to * 3600, days: days, spelling: "test")
    }

    @Test func theCalendarArithmeticKnowsItsDays() {
        #expect(LocalTime(seconds: Self.monday).weekday == 0)
        #expect(LocalTime(seconds: Self.monday + 5 * 86_400 + 3600).weekday == 5)
        #expect(LocalTime(seconds: 0).weekday == 3, "1970-01-01 was a Thursday")
        #expect(LocalTime(seconds: Self.monday + 2 * 86_400).startOfNextWeek == Self.monday + 7 * 86_400)
        #expect(daysSinceEpoch(year: 2000, month: 3, day: 1) == 11_017)
    }

    @Test func aWindowOpensAndClosesAtItsBoundariesThroughDeadlinesAlone() {
        let rule = Rule(
            name: "morning", condition: Self.window(7, 11), edges: [.enter, .exit], actions: [])
        var engine = Engine(rules: [rule])
        engine.setClock(LocalClock(origin: Self.monday, utcOffset: { _ in 0 }))
        #expect(engine.apply(FactUpdate(), at: .zero).isEmpty)
        #expect(engine.nextDeadline == Instant(.seconds(7 * 3600)))
        let opened = engine.tick(at: Instant(.seconds(7 * 3600)))
        #expect(opened.map(\.edge) == [.enter])
        #expect(engine.nextDeadline == Instant(.seconds(11 * 3600)))
        let closed = engine.tick(at: Instant(.seconds(11 * 3600)))
        #expect(closed.map(\.edge) == [.exit])
        #expect(engine.nextDeadline == Instant(.seconds(31 * 3600)), "tomorrow at 07:00")
    }

    @Test func aWindowPastMidnightBelongsToTheDayItStarts() {
        let friday = Self.window(22, 6, days: [4])
        let at = { (day: Int64, hour: Int64) in LocalTime(seconds: Self.monday + day * 86_400 + hour * 3600) }
        #expect(friday.contains(at(4, 23)))
        #expect(friday.contains(at(5, 5)), "Saturday 05:00 is still Friday night")
        #expect(!friday.contains(at(5, 23)), "Saturday night is not Friday's window")
        #expect(!friday.contains(at(4, 5)), "Friday 05:00 belongs to Thursday night")
    }

    @Test func oncePerDayLetsTomorrowsEarlierArrivalFireWhereACooldownWouldNot() {
        let condition = SSIDCondition(.oneOf([Array("Office".utf8)]))
        let rules = [
            Rule(name: "daily", condition: condition, oncePer: .day),
            Rule(name: "cooldown", condition: condition, cooldown: .seconds(24 * 3600)),
        ]
        var engine = Engine(rules: rules)
        engine.setClock(LocalClock(origin: Self.monday, utcOffset: { _ in 0 }))
        func arrive(day: Int64, hour: Int64, minute: Int64 = 0) -> [String] {
            let at = Instant(.seconds(day * 86_400 + hour * 3600 + minute * 60))
            let fired = engine.apply(FactUpdate(values: [.ssid: "Office"]), at: at).map(\.rule)
            _ = engine.apply(FactUpdate(values: [.ssid: nil]), at: at + .seconds(3600))
            return fired
        }
        #expect(arrive(day: 0, hour: 9) == ["daily", "cooldown"])
        #expect(arrive(day: 0, hour: 13) == [], "the same day")
        #expect(arrive(day: 1, hour: 8) == ["daily"], "earlier tomorrow: the 24 h cooldown still runs")
    }

    @Test func aDroppedFiringIsTraced() {
        var engine = Engine(rules: [
            Rule(name: "daily", condition: SSIDCondition(.oneOf([Array("A".utf8)])), oncePer: .day)
        ])
        engine.tracing = true
        _ = engine.apply(FactUpdate(values: [.ssid: "A"]), at: .zero)
        _ = engine.apply(FactUpdate(values: [.ssid: "B"]), at: Instant(.seconds(60)))
        _ = engine.apply(FactUpdate(values: [.ssid: "A"]), at: Instant(.seconds(120)))
        #expect(engine.takeTrace().map(\.kind) == [.dropped(reason: "once_per")])
    }
}
