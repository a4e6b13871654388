import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct DurationSyntaxTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("10s", .seconds(10)), ("5m", .seconds(300)), ("8h", .seconds(28_800)),
        ("1h30m", .seconds(5_400)), ("2m10s", .seconds(130)), ("0s", .zero), ("1.5s", .milliseconds(1_500)),
        ("1d", .seconds(86_400)), ("1w", .seconds(604_800)), ("2w3d", .seconds(1_468_800)), ("0.5w", .seconds(302_400)),
    ])
    func parses(text: String, expected: Duration) {
        #expect(DurationSyntax.parse(text) == expected)
    }

    @Test(arguments: ["", "10", "s", "10x", "-5s", "1h30", "ten seconds", "5 m", "w", "1W", "1wk"])
    func rejects(text: String) {
        #expect(DurationSyntax.parse(text) == nil)
    }

    @Test(arguments: [
        (Duration.seconds(5_400), "1h30m"), (.milliseconds(500), "500ms"), (.zero, "0s"), (.seconds(130), "2m10s"),
        (.milliseconds(1_500), "1500ms"), (.nanoseconds(1), "0.000001ms"), (.microseconds(250), "0.25ms"),
        (.seconds(3_155_760_000) + .nanoseconds(1), "3155760000000.000001ms"), (.seconds(-90), "-1m30s"),
    ])
    func formats(duration: Duration, expected: String) {
        #expect(DurationSyntax.format(duration) == expected)
    }

    /// Found by the `text` fuzz target: a nanosecond printed as `1e-06ms`, which no rule file can say.
    @Test(arguments: ["0.000001ms", "0.5us", "1.000000001s", "36525d", "36524d23h59m59.999999999s"])
    func whatFormatPrintsParsesAgain(text: String) {
        guard let duration = DurationSyntax.parse(text) else { return }
        let printed = DurationSyntax.format(duration)
        #expect(DurationSyntax.parse(printed) != nil, "\(text) prints as \(printed)")
    }
}

/// Durations that would overflow `Duration` or `Int64` are refused, never trapped on (issue 10).
@Suite(.timeLimit(.minutes(1)))
struct DurationRangeTests {
    @Test(arguments: [
        "9999999999999999d", "170141183460469231731s", "1000000000000000d1000000000000000d", "36526d",
        String(repeating: "9", count: 400) + "s", "100000000000h",
    ])
    func overflowingDurationsAreTooLong(text: String) {
        #expect(DurationSyntax.parseChecked(text) == .failure(.tooLong))
        #expect(DurationSyntax.parse(text) == nil)
    }

    @Test func theMaximumIsAHundredYearsAndParses() {
        #expect(DurationSyntax.parseChecked("36525d") == .success(DurationSyntax.maximum))
        #expect(DurationSyntax.parseChecked("1.5ms") == .success(.microseconds(1500)))
        #expect(DurationSyntax.parseChecked("1h30m") == .success(.seconds(5400)))
        #expect(DurationSyntax.parseChecked("10") == .failure(.notADuration))
    }

    @Test func secondsConvertWithoutTrapping() {
        #expect(DurationSyntax.duration(seconds: .infinity) == .zero)
        #expect(DurationSyntax.duration(seconds: 1e300) == DurationSyntax.maximum)
        #expect(DurationSyntax.duration(seconds: .nan) == .zero)
        #expect(DurationSyntax.duration(seconds: 0.25) == .milliseconds(250))
    }
}
