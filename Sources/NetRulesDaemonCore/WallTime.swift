import NetRulesCore

/// A wall-clock time, as seconds since the Unix epoch: what persisted deadlines and firing times
/// are written in. The daemon core is handed one with every event and never reads a clock
/// (`WallClock.now()` does).
package struct WallTime: Hashable, Comparable, Sendable {
    package var secondsSince1970: Double

    package init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    /// RFC 3339 in UTC with second precision: `2026-11-29T09:00:00Z`, as history, the outbox, plugin
    /// JSON and `{{time.utc}}` carry it (the action runner renders `{{time}}` in local time from it).
    ///
    /// Computed from the epoch seconds by NetRulesCore's `LocalTime` (civil-from-days): the daemon
    /// links no calendar library.
    package var rfc3339: String {
        LocalTime(seconds: Int64(secondsSince1970.rounded(.down))).rfc3339(offset: 0)
    }

    package static func < (lhs: WallTime, rhs: WallTime) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    package static func + (lhs: WallTime, rhs: Duration) -> WallTime {
        WallTime(secondsSince1970: lhs.secondsSince1970 + DurationSyntax.seconds(rhs))
    }
}
