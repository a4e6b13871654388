import NetRulesCore
import Testing

struct DurationSyntaxTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("10s", .seconds(10)), ("5m", .seconds(300)), ("8h", .seconds(28_800)),
        ("1h30m", .seconds(5_400)), ("2m10s", .seconds(130)), ("0s", .zero), ("1.5s", .milliseconds(1_500)),
        ("1d", .seconds(86_400)),
    ])
    func parses(text: String, expected: Duration) {
        #expect(DurationSyntax.parse(text) == expected)
    }

    @Test(arguments: ["", "10", "s", "10x", "-5s", "1h30", "ten seconds", "5 m"])
    func rejects(text: String) {
        #expect(DurationSyntax.parse(text) == nil)
    }

    @Test(arguments: [
        (Duration.seconds(5_400), "1h30m"), (.milliseconds(500), "500ms"), (.zero, "0s"), (.seconds(130), "2m10s"),
    ])
    func formats(duration: Duration, expected: String) {
        #expect(DurationSyntax.format(duration) == expected)
    }
}
