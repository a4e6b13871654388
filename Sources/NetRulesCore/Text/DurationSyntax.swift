/// Parses and prints durations as rule files write them: `500ms`, `10s`, `5m`, `8h`, `1h30m`, `2d`, `1w`.
///
/// A week is 7 × 24 hours, a day 24 hours: exact durations, never calendar days (a DST change
/// does not stretch them).
///
/// A number without a unit is rejected: `for: 10` could mean seconds or minutes, and guessing
/// wrong would silently change when a rule fires.
public enum DurationSyntax {
    /// The units in seconds, longest spelling first so `ms` is not read as `m`.
    private static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1),
    ]

    /// The longest duration netrules accepts anywhere: 100 years of 365.25 days.
    ///
    /// Far beyond any hold, cooldown or timeout a rule needs, and far inside what `Duration`,
    /// `Int64` nanoseconds and a `Double` of seconds can hold exactly enough, so no conversion of
    /// a parsed duration can overflow.
    public static let maximum: Duration = .seconds(3_155_760_000)

    /// Why a text is not a duration.
    public enum Problem: Error, Hashable, Sendable {
        /// Not the syntax: a number without a unit, an unknown unit, garbage.
        case notADuration
        /// Longer than `maximum`.
        case tooLong
    }

    /// Parses a duration; nil when the text is not one or is longer than `maximum`.
    public static func parse(_ text: String) -> Duration? {
        // The function promises nil for any invalid text; callers that report why use parseChecked.
        try? parseChecked(text).get()
    }

    /// Parses a duration, saying why not.
    public static func parseChecked(_ text: String) -> Result<Duration, Problem> {
        var rest = Substring(text.trimmingSpaces)
        guard !rest.isEmpty else { return .failure(.notADuration) }
        let limit = seconds(maximum)
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            // A thousand digits parse to infinity (or a huge finite value): both are too long.
            guard !number.isEmpty, let value = Double(number) else { return .failure(.notADuration) }
            rest = rest.dropFirst(number.count)
            guard let unit = units.first(where: { rest.hasPrefix($0.suffix) }) else { return .failure(.notADuration) }
            rest = rest.dropFirst(unit.suffix.count)
            guard value.isFinite, value <= limit / unit.seconds else { return .failure(.tooLong) }
            total += value * unit.seconds
            guard total <= limit else { return .failure(.tooLong) }
        }
        return .success(duration(seconds: total))
    }

    /// A duration from seconds in `0...seconds(maximum)`, to the nanosecond; anything else is clamped.
    public static func duration(seconds value: Double) -> Duration {
        guard value.isFinite, value > 0 else { return .zero }
        let clamped = min(value, seconds(maximum))
        let whole = clamped.rounded(.down)
        let nanoseconds = ((clamped - whole) * 1e9).rounded()
        return .seconds(Int64(whole)) + .nanoseconds(Int64(nanoseconds))
    }

    /// Prints a duration in the largest exact units: `1h30m`, `500ms`, `0.000001ms`, `0s`.
    ///
    /// A fraction of a second is printed in milliseconds as an exact decimal, never with an
    /// exponent (`1e-06ms` is not a duration `parse` reads).
    public static func format(_ duration: Duration) -> String {
        if duration < .zero { return "-" + format(.zero - duration) }
        let (seconds, attoseconds) = duration.components
        if seconds == 0 && attoseconds == 0 { return "0s" }
        if attoseconds != 0 {
            let perMillisecond: Int64 = 1_000_000_000_000_000
            let milliseconds = attoseconds / perMillisecond
            // Seconds then three digits of milliseconds, as text, so no multiplication can overflow.
            let whole = seconds == 0 ? "\(milliseconds)" : "\(seconds)" + zeroPadded(milliseconds, to: 3)
            var fraction = zeroPadded(attoseconds % perMillisecond, to: 15)
            while fraction.last == "0" { fraction.removeLast() }
            return whole + (fraction.isEmpty ? "" : "." + fraction) + "ms"
        }
        var rest = seconds
        var out = ""
        for (suffix, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where rest >= size {
            out += "\(rest / size)\(suffix)"
            rest %= size
        }
        return out
    }

    private static func zeroPadded(_ value: Int64, to width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The duration in seconds, as JSON carries it.
    public static func seconds(_ duration: Duration) -> Double {
        let (s, a) = duration.components
        return Double(s) + Double(a) / 1e18
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s.removeLast() }
        return s
    }
}
