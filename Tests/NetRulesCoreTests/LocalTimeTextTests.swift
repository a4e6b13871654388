import NetRulesCore
import Testing

/// RFC 3339 in local time and the weekday text `simulate` shows (issue 24, items 6 and 12): pure
/// arithmetic given the offset, so these need no time zone database and no `TZ`.
@Suite(.timeLimit(.minutes(1)))
struct LocalTimeTextTests {
    /// 2026-12-02T06:00:10Z, a Wednesday.
    static let instant: Int64 = daysSinceEpoch(year: 2026, month: 12, day: 2) * 86_400 + 6 * 3_600 + 10

    @Test(
        arguments: [
            (Int64(3_600), "2026-12-02T07:00:10+01:00"), (Int64(0), "2026-12-02T06:00:10Z"),
            (Int64(-5 * 3_600 - 1_800), "2026-12-02T00:30:10-05:30"), (Int64(14 * 3_600), "2026-12-02T20:00:10+14:00"),
        ] as [(Int64, String)])
    func formatsAUnixTimeInTheZoneOfItsOffset(offset: Int64, expected: String) {
        #expect(LocalTime.rfc3339(unixTime: Self.instant, utcOffset: offset) == expected)
    }

    @Test(arguments: ["2026-12-02T07:00:10+01:00", "2026-12-02T06:00:10Z", "2026-12-02T00:30:10-05:30"])
    func parsesWhatItFormatsBackToTheSameInstant(text: String) {
        #expect(LocalTime.unixTime(rfc3339: text) == Self.instant)
    }

    @Test(arguments: ["2026-12-02", "2026-12-02T07:00:10", "2026-13-02T07:00:10Z", "2026-12-02T07:00:10+0100"])
    func refusesTextThatIsNotRFC3339(text: String) {
        #expect(LocalTime.unixTime(rfc3339: text) == nil)
    }

    @Test func showsTheWeekdayBesideTheTimeOfDay() {
        #expect(LocalTime(seconds: Self.instant + 3_600).weekdayTimeText == "Wed 07:00:10")
        // 1970-01-01 was a Thursday; a week later too.
        #expect(LocalTime(seconds: 7 * 86_400).weekdayTimeText == "Thu 00:00:00")
        #expect(LocalTime(seconds: -1).weekdayTimeText == "Wed 23:59:59")
    }

    @Test func timeIsLocalAndTimeUTCIsUTC() throws {
        let context = TemplateContext(
            facts: FactStore(), rule: "r", edge: .enter, time: "2026-12-02T07:00:10+01:00",
            utcTime: "2026-12-02T06:00:10Z")
        #expect(
            try Template("{{time}} / {{time.utc}}").render(context)
                == "2026-12-02T07:00:10+01:00 / 2026-12-02T06:00:10Z")
        #expect(TemplateName("time.utc") == .utcTime)
        #expect(TemplateName.utcTime.environmentVariable == "NETRULES_TIME_UTC")
        #expect(TemplateName.suggestion(for: "time.ut") == "did you mean 'time.utc'?")
    }
}
