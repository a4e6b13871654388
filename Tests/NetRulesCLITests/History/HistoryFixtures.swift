import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore

/// Firings covering every shape `history` prints: outcomes of each kind, drops of each reason,
/// unknown and absent facts, and values that try to forge lines.
enum HistoryFixtures {
    /// 2026-12-01 09:30:00 UTC, the "now" of the fixtures.
    static let now = WallClock.unixTime(rfc3339: "2026-12-01T09:30:00Z")!

    static func outcome(
        _ status: String, exit: Int? = nil, http: Int? = nil, ms: Double? = nil, output: String? = nil,
        retries: Int? = nil, error: String? = nil, account: String? = nil, group: String? = nil
    ) -> HistoryEntry.Outcome {
        var outcome = HistoryEntry.Outcome(status: status)
        outcome.exitStatus = exit
        outcome.httpStatus = http
        outcome.durationMilliseconds = ms
        outcome.output = output
        outcome.retries = retries
        outcome.error = error
        outcome.account = account
        outcome.group = group
        return outcome
    }

    static let entries: [HistoryEntry] = [
        HistoryEntry(
            id: "5f3a-1", time: "2026-12-01T08:02:13Z", rule: "office-check-in", edge: .enter,
            facts: [
                .init(key: "ssid", value: .string("XF-WORLD")),
                .init(key: "bssid", value: .string("a4:2b:8c:92:47:3c")),
                .init(key: "portal", value: .string("clear")),
            ],
            actions: [
                .init(
                    type: "webhook", rendered: "POST https://hr.example.com/check-in?token=<secret>",
                    outcome: outcome("ok", http: 200, ms: 143.2, retries: 1), idempotencyKey: "5f3a-1-0"),
                .init(
                    type: "write",
                    rendered:
                        "/srv/alice/checkins.log (append, owner alice): 2026-12-01T08:02:13Z XF-WORLD\\n",
                    outcome: outcome("ok", ms: 1.2, account: "alice", group: "alice")),
            ]),
        HistoryEntry(
            id: "5f3a-2", time: "2026-12-01T08:10:00Z", rule: "vpn-away", edge: .exit,
            facts: [
                .init(key: "ssid", value: .string("Café \u{1b}[31m\nforged")), .init(key: "vpn", value: .null),
                .init(key: "interfaces.wg0", value: nil),
            ],
            actions: [
                .init(
                    type: "run", rendered: "wg-quick down wg0",
                    outcome: outcome(
                        "failed", exit: 1, ms: 20.4, output: "stderr: wg0 is not a WireGuard interface",
                        error: "the command exited with status 1", account: "alice")),
                .init(
                    type: "write", rendered: "/run/vpn.state (replace): down",
                    outcome: outcome("skipped", error: "action 0 (run) failed")),
            ]),
        HistoryEntry(
            id: "5f3a-drop-1", time: "2026-12-01T08:40:00Z", rule: "office-check-in", edge: .enter,
            facts: [.init(key: "ssid", value: .string("XF-WORLD"))], actions: [],
            dropped: .init(reason: "once_per", until: "2026-12-01T23:00:00Z")),
        HistoryEntry(
            id: "5f3a-drop-2", time: "2026-12-01T08:41:00Z", rule: "flapping-link", edge: .enter,
            facts: [.init(key: "interfaces.eth0", value: .string("up"))], actions: [],
            dropped: .init(reason: "cooldown", until: "2026-12-01T08:46:00Z")),
        HistoryEntry(
            id: "5f3a-3", time: "2026-12-01T08:50:00Z", rule: "flapping-link", edge: .exit,
            facts: [.init(key: "interfaces.eth0", value: .string("down"))],
            actions: [
                .init(
                    type: "run", rendered: "logger link down",
                    outcome: outcome("skipped", error: "dropped: the rule fired 'enter' since"))
            ],
            dropped: .init(reason: "stale")),
        HistoryEntry(
            id: "5f3a-4", time: "2026-12-01T09:01:00Z", rule: "office-check-out", edge: .exit,
            facts: [
                .init(key: "hosts.intranet", value: .string("reachable")),
                .init(key: "ip", value: .array([.string("192.0.2.7"), .string("2001:db8::7")])),
                .init(key: "signal", value: .number(-61)), .init(key: "vpn", value: .bool(true)),
            ],
            actions: [
                .init(
                    type: "webhook", rendered: "POST https://hr.example.com/check-out", outcome: outcome("queued"),
                    idempotencyKey: "5f3a-4-0"),
                .init(
                    type: "notify", rendered: "the plugin /usr/lib/netrules/netrules-action-notify", outcome: .pending),
            ]),
    ]
}
