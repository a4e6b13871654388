import NetRulesCore
internal import NetRulesSystem

/// The wall clock of a simulated timeline: `--start`, or a fixed Monday so results never depend
/// on the day `simulate` runs.
enum SimulationStart {
    /// The machine's time zone, for turning local times into Unix times.
    static let localClock = LocalClock(origin: 0, utcOffset: { SystemTimeZone.utcOffset(atUnixTime: $0) })

    /// Monday 2026-12-07 00:00 in the local time zone (`TZ`).
    static func defaultStart() -> Int64 {
        localClock.unixTime(ofLocal: daysSinceEpoch(year: 2026, month: 12, day: 7) * 86_400)
    }

    /// Unix seconds of an RFC 3339 time (`2026-12-07T08:55:00+01:00`, `…Z`, or without an offset
    /// for local time); nil when the text is not one.
    static func parse(_ text: String) -> Int64? {
        let scalars = Array(text.unicodeScalars)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= scalars.count else { return nil }
            var value: Int64 = 0
            for index in range {
                guard ("0"..."9").contains(scalars[index]) else { return nil }
                value = value * 10 + Int64(scalars[index].value - 48)
            }
            return value
        }
        guard scalars.count >= 16, scalars[4] == "-", scalars[7] == "-", scalars[10] == "T" || scalars[10] == " ",
            scalars[13] == ":", let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60
        else { return nil }
        var index = 16
        var second: Int64 = 0
        if index < scalars.count, scalars[index] == ":" {
            guard let s = number(17..<19), s < 60 else { return nil }
            second = s
            index = 19
            if index < scalars.count, scalars[index] == "." {
                index += 1
                while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            }
        }
        let local = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        if index == scalars.count {
            return localClock.unixTime(ofLocal: local)
        }
        if scalars[index] == "Z" || scalars[index] == "z" { return index + 1 == scalars.count ? local : nil }
        guard scalars[index] == "+" || scalars[index] == "-", scalars.count == index + 6, scalars[index + 3] == ":",
            let hours = number((index + 1)..<(index + 3)), let minutes = number((index + 4)..<(index + 6))
        else { return nil }
        let offset = (hours * 3600 + minutes * 60) * (scalars[index] == "-" ? -1 : 1)
        return local - offset
    }
}

/// A firing or a trace line, in time order for printing.
enum SimulationEvent {
    case firing(Firing)
    case trace(TraceEvent)

    var at: Instant {
        switch self {
        case .firing(let f): f.at
        case .trace(let t): t.at
        }
    }

    /// Both lists in time order; at the same instant, trace lines (a hold started) before firings.
    static func merge(_ firings: [Firing], _ trace: [TraceEvent]) -> [SimulationEvent] {
        let events = trace.map(SimulationEvent.trace) + firings.map(SimulationEvent.firing)
        return events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}
