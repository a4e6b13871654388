import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
internal import NetRulesSystem

/// What `status`, `rules` and `doctor` say while the daemon's last reload failed
/// (`ControlDocuments.failedReload`): which files have errors, since when, how many, and that the
/// previous rules still run.
struct FailedReloadText: Sendable {
    /// Seconds east of UTC at a Unix time, for the times (which the daemon sends in UTC).
    var utcOffset: @Sendable (Int64) -> Int64
    /// The Unix time now: a time of today is shown as its time of day only.
    var now: Int64

    /// This machine's zone and clock.
    static var system: FailedReloadText {
        FailedReloadText(
            utcOffset: { SystemTimeZone.utcOffset(atUnixTime: $0) },
            now: Int64(WallClock.now().secondsSince1970.rounded(.down)))
    }

    /// `rules: /etc/netrules/hello.yaml has errors since 17:11:25 (2); running the previous rules`,
    /// or nil when `member` (a document's `failed_reload`) is absent.
    func line(_ member: JSONValue?) -> String? {
        ControlDocuments.failedReload(from: member).map { "rules: " + detail($0) }
    }

    /// The line without its `rules: `: each file with the time its errors began and their count
    /// (`a.yaml has errors since 17:11:25 (2), b.yaml since 17:12:02 (1)`), the errors in no
    /// file, then `running the previous rules`. Paths and problems come escaped from
    /// `ControlDocuments.failedReload(from:)`.
    func detail(_ failure: FailedReload) -> String {
        var parts: [String] = []
        for (index, file) in failure.files.enumerated() {
            parts.append(
                file.path + (index == 0 ? " has errors since " : " since ") + time(file.since) + " (\(file.errors))")
        }
        var text = parts.joined(separator: ", ")
        if !failure.problems.isEmpty {
            text +=
                (text.isEmpty ? "not reloaded since \(time(failure.since)): " : "; ")
                + failure.problems.joined(separator: "; ")
        }
        if text.isEmpty { text = "not reloaded since \(time(failure.since))" }
        return text + "; running the previous rules"
    }

    /// `17:11:25` today, `2026-12-01 17:11:25 +0100` another day, in this machine's zone.
    func time(_ rfc3339: String) -> String {
        guard let seconds = WallClock.unixTime(rfc3339: rfc3339) else { return TerminalText.escaped(rfc3339) }
        let offset = utcOffset(seconds)
        let local = LocalTime(seconds: seconds + offset)
        guard local.dateText != LocalTime(seconds: now + utcOffset(now)).dateText else { return local.timeText }
        return WallClock.local(seconds, utcOffset: offset)
    }
}
