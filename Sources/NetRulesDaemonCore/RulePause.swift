/// A rule paused by a command (`mqtt: commands: true`, docs/mqtt.md): its firings are not run
/// until it is resumed.
///
/// The engine still follows the rule's truth while it is paused: its `for:` holds, `cooldown:`
/// and `once_per:` go on as if its firings ran, so resuming fires nothing stale (the rule already
/// true stays quiet) and the next edge after the resume fires. Each firing skipped is recorded in
/// the history as dropped, `paused`. `DaemonCore` keeps the paused rules and persists them with
/// the rest of its state; a rule that goes in a reload, or every rule once `commands: true` is
/// gone, runs again.
package struct RulePause: Sendable, Hashable {
    /// Who paused it, as `status` and `explain` name it: `MQTT`.
    package var by: String
    /// When it was paused.
    package var since: WallTime

    package init(by: String, since: WallTime) {
        self.by = by
        self.since = since
    }
}

/// A paused rule as `status`, `rules` and `explain` show it.
package struct PausedRule: Sendable, Hashable {
    package var rule: String
    /// Who paused it: `MQTT`.
    package var by: String
    /// When, RFC 3339 in the daemon's local time with its offset.
    package var since: String

    package init(rule: String, by: String, since: String) {
        self.rule = rule
        self.by = by
        self.since = since
    }
}
