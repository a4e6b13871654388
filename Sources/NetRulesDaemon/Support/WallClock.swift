import FoundationEssentials
import NetRulesCore

/// Wall-clock time as rules and logs show it.
package enum WallClock {
    /// RFC 3339 in UTC with second precision: `2026-11-29T09:00:00Z` (`{{time}}`, `NETRULES_TIME`).
    ///
    /// Computed from the epoch seconds by NetRulesCore's `LocalTime` (civil-from-days) rather than
    /// `Calendar`: the daemon links FoundationEssentials only, whose time zones need no ICU data.
    package static func rfc3339(_ date: Date) -> String {
        LocalTime(seconds: Int64(date.timeIntervalSince1970.rounded(.down))).rfc3339(offset: 0)
    }

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
    /// fractions of a second ignored); nil when the text is not one.
    package static func unixTime(rfc3339 text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        }
        var offset: Int64 = 0
        let rest = Array(bytes[index...])
        if rest == [UInt8(ascii: "Z")] || rest == [UInt8(ascii: "z")] {
            offset = 0
        } else if rest.count == 6, rest[0] == UInt8(ascii: "+") || rest[0] == UInt8(ascii: "-"),
            rest[3] == UInt8(ascii: ":"), let h = number(index + 1..<index + 3), let m = number(index + 4..<index + 6)
        {
            offset = (h * 3_600 + m * 60) * (rest[0] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return days * 86_400 + hour * 3_600 + minute * 60 + second - offset
    }

    private static func pad(_ n: Int64, _ width: Int = 2) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
