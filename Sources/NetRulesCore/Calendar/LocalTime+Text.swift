extension LocalTime {
    /// `Mon` … `Sun`.
    public var weekdayName: String { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][weekday] }

    /// `Tue 07:00:10`: the weekday and the time of day, as `simulate` shows a virtual instant.
    public var weekdayTimeText: String { weekdayName + " " + timeText }

    /// RFC 3339 for a Unix time in the zone whose offset is given: `2026-12-02T07:00:10+01:00`,
    /// `…Z` when `utcOffset` is 0.
    ///
    /// - Parameters:
    ///   - unixTime: seconds since the Unix epoch.
    ///   - utcOffset: the seconds east of UTC in force then (the caller looks it up: the core
    ///     knows no time zone database).
    public static func rfc3339(unixTime: Int64, utcOffset: Int64) -> String {
        LocalTime(seconds: unixTime + utcOffset).rfc3339(offset: utcOffset)
    }

    /// The Unix time of an RFC 3339 time as ``rfc3339(offset:milliseconds:)`` writes it (`Z` or
    /// a `±HH:MM` offset; a fraction of a second is ignored); nil when the text is not one.
    public static func unixTime(rfc3339 text: String) -> Int64? {
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
}
