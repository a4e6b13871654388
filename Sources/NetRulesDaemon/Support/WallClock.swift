import NetRulesCore
import NetRulesDaemonCore
import NetRulesSystem

/// Wall-clock time as rules and logs show it.
package enum WallClock {
    /// The wall clock now (`CLOCK_REALTIME`, which `date` shows and NTP sets).
    package static func now() -> WallTime {
        let (seconds, nanoseconds) = sys_realtimeNanoseconds().quotientAndRemainder(dividingBy: 1_000_000_000)
        return WallTime(secondsSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// The wall-clock time of `instant` on the continuous clock (a moment in this boot, past or
    /// to come), as far as the wall clock has not been set since.
    package static func at(_ instant: ContinuousClock.Instant) -> WallTime {
        now() + ContinuousClock.now.duration(to: instant)
    }

    /// RFC 3339 in UTC with second precision: `WallTime.rfc3339`.
    package static func rfc3339(_ time: WallTime) -> String { time.rfc3339 }

    /// RFC 3339 in UTC with milliseconds, `2026-11-29T09:00:00.045Z`, for a time given as
    /// nanoseconds since the Unix epoch (`sys_realtimeNanoseconds()`); `watch` without a daemon
    /// stamps its lines so.
    package static func rfc3339(nanosecondsSinceEpoch nanoseconds: Int64) -> String {
        let (seconds, rest) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let (whole, fraction) = rest < 0 ? (seconds - 1, rest + 1_000_000_000) : (seconds, rest)
        return LocalTime(seconds: whole).rfc3339(offset: 0, milliseconds: Int(fraction / 1_000_000))
    }

    /// `2026-12-01 09:02:13 +0100`: a Unix time as local time with its offset, as people read it.
    /// - Parameters:
    ///   - seconds: the Unix time.
    ///   - utcOffset: seconds east of UTC in force then (`SystemTimeZone.utcOffset(atUnixTime:)`).
    ///   - withSeconds: false for `2026-12-01 09:02 +0100`.
    ///   - withOffset: false to leave out the offset.
    package static func local(
        _ seconds: Int64, utcOffset: Int64, withSeconds: Bool = true, withOffset: Bool = true
    ) -> String {
        let local = LocalTime(seconds: seconds + utcOffset)
        var text = local.dateText + " " + (withSeconds ? local.timeText : local.hourMinuteText)
        if withOffset {
            let minutes = abs(utcOffset) / 60
            text += " \(utcOffset < 0 ? "-" : "+")\(pad(minutes / 60))\(pad(minutes % 60))"
        }
        return text
    }

    /// The Unix time of an RFC 3339 time as `rfc3339(_:)` writes it (`Z` or a `±HH:MM` offset,
    /// fractions of a second ignored); nil when the text is not one. The parser is Core's
    /// (`LocalTime.unixTime(rfc3339:)`), which the action runner also uses for `{{time}}`.
    package static func unixTime(rfc3339 text: String) -> Int64? {
        LocalTime.unixTime(rfc3339: text)
    }

    private static func pad(_ n: Int64, _ width: Int = 2) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
