/// `time: { from: "07:00", to: "11:00", days: [mon, tue, wed, thu, fri] }`: the machine's local
/// time is inside the window.
///
/// `from` is included and `to` is not; `to` earlier than `from` wraps past midnight, and `days`
/// names the day a window starts on (`from: "22:00", to: "06:00", days: [fri]` is Friday night).
/// Without `from`/`to` the whole day counts. The engine keeps the local time in the fact
/// `clock.local` and moves it at each window's boundaries only, through its deadlines: no polling.
public struct TimeCondition: Condition {
    /// Seconds after local midnight.
    public var from: Int64
    /// Seconds after local midnight at which the window closes (excluded); earlier than `from` wraps
    /// past midnight.
    public var to: Int64
    /// 0 for Monday … 6 for Sunday.
    public var days: Set<Int>
    /// As written, for `explain`.
    public var spelling: String

    /// Creates a time window.
    ///
    /// - Parameters:
    ///   - from: seconds after local midnight at which the window opens (included).
    ///   - to: seconds after local midnight at which it closes (excluded); equal to `from` for the
    ///     whole day.
    ///   - days: the weekdays a window starts on, 0 for Monday … 6 for Sunday.
    ///   - spelling: the condition as written, for `explain`.
    public init(from: Int64, to: Int64, days: Set<Int>, spelling: String) {
        self.from = from
        self.to = to
        self.days = days
        self.spelling = spelling
    }

    /// `clock.local`, which the engine moves at the window's boundaries.
    public var readKeys: [FactKey] { [.localClock] }

    /// Whether `clock.local` is inside the window; unknown until the engine has set it.
    public func evaluate(_ facts: FactStore) -> Truth {
        NetRulesCore.evaluate(facts[.localClock], absent: .unknown) { value in
            guard let seconds = value.numberValue, seconds.isFinite, abs(seconds) < 1e15 else { return false }
            return contains(LocalTime(seconds: Int64(seconds)))
        }
    }

    /// Whether the window holds at a local time.
    public func contains(_ time: LocalTime) -> Bool {
        let second = time.secondOfDay
        if from == to { return days.contains(time.weekday) }
        if from < to { return days.contains(time.weekday) && second >= from && second < to }
        let yesterday = (time.weekday + 6) % 7
        return (days.contains(time.weekday) && second >= from) || (days.contains(yesterday) && second < to)
    }

    /// The first local time after `time` at which the window may open or close.
    public func nextBoundary(after time: LocalTime) -> Int64 {
        let marks = from == to ? [0] : [from, to]
        for dayOffset in Int64(0)...8 {
            let midnight = (time.day + dayOffset) * 86_400
            for mark in marks.sorted() where midnight + mark > time.seconds {
                return midnight + mark
            }
        }
        return time.startOfNextDay
    }

    /// `time` and the window as written.
    public var description: String { "time \(spelling)" }
}

extension FactKey {
    /// The local time (seconds since 1970-01-01 local) at the last boundary of a `time:` window;
    /// kept by the engine, not by an observer.
    public static let localClock: FactKey = "clock.local"

    /// Whether the engine keeps this key itself (status and watch leave such keys out).
    public var isEngineInternal: Bool { namespace == "clock" }
}
