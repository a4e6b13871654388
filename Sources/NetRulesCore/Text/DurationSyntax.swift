/// Parses and prints durations as rule files write them: `500ms`, `10s`, `5m`, `8h`, `1h30m`, `2d`.
///
/// A number without a unit is rejected: `for: 10` could mean seconds or minutes, and guessing
/// wrong would silently change when a rule fires.
public enum DurationSyntax {
    /// The units, longest spelling first so `ms` is not read as `m`.
    private static let units: [(suffix: String, attoseconds: Duration)] = [
        ("ms", .milliseconds(1)), ("us", .microseconds(1)), ("µs", .microseconds(1)),
        ("d", .seconds(86_400)), ("h", .seconds(3_600)), ("m", .seconds(60)), ("s", .seconds(1)),
    ]

    /// Parses a duration; nil when the text is not one.
    public static func parse(_ text: String) -> Duration? {
        var rest = Substring(text.trimmingSpaces)
        guard !rest.isEmpty else { return nil }
        var total = Duration.zero
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number), value.isFinite else { return nil }
            rest = rest.dropFirst(number.count)
            guard let unit = units.first(where: { rest.hasPrefix($0.suffix) }) else { return nil }
            rest = rest.dropFirst(unit.suffix.count)
            total += unit.attoseconds * value
        }
        return total
    }

    /// Prints a duration in the largest exact units: `1h30m`, `500ms`, `0s`.
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if seconds == 0 && attoseconds == 0 { return "0s" }
        if attoseconds != 0 {
            let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
            return FactValue.format(ms) + "ms"
        }
        var rest = seconds
        var out = ""
        for (suffix, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where rest >= size {
            out += "\(rest / size)\(suffix)"
            rest %= size
        }
        return out
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
