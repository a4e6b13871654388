@preconcurrency import Glibc
import NetRulesSystem

/// A wall-clock reading for `watch`'s timestamps: a person reads them, so they are real time in UTC,
/// unlike the engine's injected monotonic clock.
struct Wallclock: Sendable {
    var seconds: Int
    var milliseconds: Int

    static func now() -> Wallclock {
        let spec = sys_clock_gettime(CLOCK_REALTIME)
        return Wallclock(seconds: spec.tv_sec, milliseconds: spec.tv_nsec / 1_000_000)
    }

    private var fields: tm {
        var time = time_t(seconds)
        var out = tm()
        gmtime_r(&time, &out)
        return out
    }

    /// `2026-01-02T03:04:05.678Z`.
    var iso8601: String {
        let f = fields
        return "\(f.tm_year + 1900)-\(two(f.tm_mon + 1))-\(two(f.tm_mday))T\(timeOfDay)Z"
    }

    /// `03:04:05.678` (UTC).
    var timeOfDay: String {
        let f = fields
        let millis = String(milliseconds)
        return
            "\(two(f.tm_hour)):\(two(f.tm_min)):\(two(f.tm_sec)).\(String(repeating: "0", count: 3 - millis.count))\(millis)"
    }

    private func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
