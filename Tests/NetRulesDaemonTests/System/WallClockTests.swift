import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesSystem
import Testing

@Suite(.timeLimit(.minutes(1)))
struct WallClockTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (951_782_400.0, "2000-02-29T00:00:00Z"),
        (1_795_962_241.7, "2026-11-29T14:24:01Z"),
        (4_102_444_799.0, "2099-12-31T23:59:59Z"), (-1.0, "1969-12-31T23:59:59Z"),
    ])
    func formatsRFC3339InUTC(seconds: Double, expected: String) {
        #expect(WallClock.rfc3339(WallTime(secondsSince1970: seconds)) == expected)
    }

    @Test func nowReadsTheRealtimeClock() {
        let before = sys_realtimeNanoseconds()
        let now = WallClock.now().secondsSince1970
        let after = sys_realtimeNanoseconds()
        // A Double near 2^31 seconds holds the time to about a quarter of a microsecond.
        #expect(Double(before) / 1e9 - 1e-6 <= now && now <= Double(after) / 1e9 + 1e-6)
    }
}
