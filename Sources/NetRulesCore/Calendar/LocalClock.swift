/// The local wall clock the engine needs for `time:` conditions and `once_per:`, as numbers.
///
/// The core reads no clock and knows no time zone database: the caller gives the Unix time at
/// the engine's `Instant.zero` and a function for the UTC offset in force at a Unix time (on
/// Linux, `localtime_r`'s `tm_gmtoff`, which honours `TZ`). Everything else — the local date,
/// the weekday, the next boundary — is arithmetic here, so it runs the same under `simulate`.
public struct LocalClock: Sendable {
    /// Unix seconds at the engine's `Instant.zero`.
    public var origin: Int64
    /// Seconds east of UTC in force at a Unix time.
    public var utcOffset: @Sendable (Int64) -> Int64

    /// Creates a clock from the Unix time at `Instant.zero` and a UTC-offset function.
    ///
    /// - Parameters:
    ///   - origin: Unix seconds at the engine's `Instant.zero`.
    ///   - utcOffset: the seconds east of UTC in force at a Unix time; the engine calls it while
    ///     evaluating, so it must be quick and must not block.
    public init(origin: Int64, utcOffset: @escaping @Sendable (Int64) -> Int64) {
        self.origin = origin
        self.utcOffset = utcOffset
    }

    /// UTC, with `Instant.zero` at the Unix epoch: what tests and an engine without a clock use.
    public static let utc = LocalClock(origin: 0, utcOffset: { _ in 0 })

    /// The Unix time of an engine instant (whole seconds, rounded down).
    public func unixTime(at instant: Instant) -> Int64 {
        let (seconds, attoseconds) = instant.offset.components
        return origin + seconds - (attoseconds < 0 ? 1 : 0)
    }

    /// The local time at an engine instant.
    public func local(at instant: Instant) -> LocalTime {
        let unix = unixTime(at: instant)
        return LocalTime(seconds: unix + utcOffset(unix))
    }

    /// The engine instant at which the local clock reads `local` (seconds since the epoch in
    /// local time). Around a DST change the offset is looked up twice, so a boundary lands on the
    /// local time it names (a local time skipped by the change maps to just after it).
    public func instant(ofLocal local: Int64) -> Instant {
        Instant(.seconds(unixTime(ofLocal: local) - origin))
    }

    /// The Unix time at which the local clock reads `local` (see `instant(ofLocal:)`).
    public func unixTime(ofLocal local: Int64) -> Int64 {
        let guess = local - utcOffset(local)
        return local - utcOffset(guess)
    }
}

/// A local time as seconds since 1970-01-01 00:00 local, with the calendar fields rules use.
public struct LocalTime: Hashable, Sendable, Comparable {
    /// Seconds since 1970-01-01 00:00 local time: Unix time with the UTC offset already added.
    public var seconds: Int64

    /// Creates the local time `seconds` after 1970-01-01 00:00 local.
    public init(seconds: Int64) { self.seconds = seconds }

    /// Days since 1970-01-01 (local), rounded down.
    public var day: Int64 { floorDivide(seconds, 86_400) }
    /// Seconds since local midnight.
    public var secondOfDay: Int64 { seconds - day * 86_400 }
    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    public var weekday: Int { Int(floorModulo(day + 3, 7)) }
    /// Weeks since the Monday before 1970-01-01: the ISO week, as a running number.
    public var week: Int64 { floorDivide(day + 3, 7) }

    /// Local midnight starting the next day.
    public var startOfNextDay: Int64 { (day + 1) * 86_400 }
    /// Local midnight starting the next Monday.
    public var startOfNextWeek: Int64 { (day + 7 - Int64(weekday)) * 86_400 }

    /// Earlier local times sort first.
    public static func < (a: LocalTime, b: LocalTime) -> Bool { a.seconds < b.seconds }

    /// The proleptic Gregorian date (Howard Hinnant's civil_from_days).
    public var date: (year: Int64, month: Int64, day: Int64) {
        let z = day + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth)
    }

    /// `YYYY-MM-DD`.
    public var dateText: String {
        let (year, month, day) = date
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))"
    }

    /// `HH:MM`.
    public var hourMinuteText: String {
        "\(digits(secondOfDay / 3_600, 2)):\(digits(secondOfDay % 3_600 / 60, 2))"
    }

    /// `HH:MM:SS`.
    public var timeText: String { hourMinuteText + ":" + digits(secondOfDay % 60, 2) }

    /// RFC 3339 with the local offset: `2026-12-02T04:00:00+01:00` (`Z` when `offset` is 0).
    ///
    /// The package's one RFC 3339 formatter: the daemon's `{{time}}`, logs, history and `watch`
    /// all come here, so their timestamps cannot drift apart.
    /// - Parameters:
    ///   - offset: the seconds east of UTC this local time is in.
    ///   - milliseconds: a fraction of the second to show with three digits (`…05.678Z`); nil for
    ///     whole seconds.
    public func rfc3339(offset: Int64, milliseconds: Int? = nil) -> String {
        let fraction = milliseconds.map { "." + digits(Int64($0), 3) } ?? ""
        let zone: String
        if offset == 0 {
            zone = "Z"
        } else {
            let minutes = abs(offset) / 60
            zone = (offset < 0 ? "-" : "+") + "\(digits(minutes / 60, 2)):\(digits(minutes % 60, 2))"
        }
        let (year, month, day) = date
        let second = secondOfDay
        var text = digits(year, 4)
        text.reserveCapacity(32)
        text += "-"
        text += digits(month, 2)
        text += "-"
        text += digits(day, 2)
        text += "T"
        text += digits(second / 3_600, 2)
        text += ":"
        text += digits(second / 60 % 60, 2)
        text += ":"
        text += digits(second % 60, 2)
        text += fraction
        text += zone
        return text
    }
}

extension LocalClock {
    /// RFC 3339 in local time with its offset, for an engine instant.
    public func rfc3339(at instant: Instant) -> String {
        let unix = unixTime(at: instant)
        let offset = utcOffset(unix)
        return LocalTime(seconds: unix + offset).rfc3339(offset: offset)
    }
}

/// `n` in decimal, zero-padded to `width` digits.
private func digits(_ n: Int64, _ width: Int) -> String {
    // The usual case, a number that fits the width, without building and padding two strings:
    // timestamps are made on the way from an event to its action.
    if n >= 0, width <= 18, n < power(10, width) {
        return String(unsafeUninitializedCapacity: width) { buffer in
            var rest = n
            for index in stride(from: width - 1, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            return width
        }
    }
    let text = String(n)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}

private func power(_ base: Int64, _ exponent: Int) -> Int64 {
    var result: Int64 = 1
    for _ in 0..<exponent { result *= base }
    return result
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
public func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = floorDivide(y, 400)
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

func floorModulo(_ a: Int64, _ b: Int64) -> Int64 { a - floorDivide(a, b) * b }
