import NetRulesCore

/// How much the webhook outbox may hold: pending deliveries per rule, overall and in bytes, and
/// how many final failures `outbox/failed/` keeps and for how long.
///
/// The defaults bound what a flapping network can make the daemon keep, on disk and in memory,
/// while leaving room for what a real outage queues:
/// - 100 pending per rule: a rule firing every few minutes through a weekend offline stays under it;
///   a rule firing hundreds of times while the endpoint is down is flapping, and its oldest
///   deliveries matter least.
/// - 1,000 pending overall, the same as `--history-limit`, so every pending delivery can still be
///   found in `netrules history`.
/// - 16 MiB of pending entries: a thousand ordinary deliveries (a few hundred bytes to a few KiB
///   each) fit many times over; a few rules with large bodies cannot fill the disk or the memory.
/// - `failed/` keeps the newest 1,000 files for at most 30 days: long enough to read after a
///   holiday, bounded whatever happens.
package struct OutboxLimits: Sendable, Hashable {
    /// Pending deliveries of one rule (`run --outbox-rule-limit`).
    package var pendingPerRule: Int
    /// Pending deliveries of all rules (`run --outbox-limit`).
    package var pending: Int
    /// The pending entries' total size in bytes, as first written (`run --outbox-bytes`).
    package var pendingBytes: Int
    /// Files kept in `outbox/failed/`; the oldest beyond it are deleted (`run --outbox-failed-limit`).
    package var failed: Int
    /// How long a file stays in `outbox/failed/` (`run --outbox-failed-age`).
    package var failedAge: Duration

    package static let `default` = OutboxLimits(
        pendingPerRule: 100, pending: 1_000, pendingBytes: 16 << 20, failed: 1_000, failedAge: .seconds(30 * 86_400))

    /// The largest count any of the limits accepts.
    package static let maximumCount = 1_000_000

    /// The range `pendingBytes` accepts: 1 KiB (a single ordinary entry) to 1 GiB.
    package static let pendingBytesRange = (1 << 10)...(1 << 30)

    package init(pendingPerRule: Int, pending: Int, pendingBytes: Int, failed: Int, failedAge: Duration) {
        self.pendingPerRule = pendingPerRule
        self.pending = pending
        self.pendingBytes = pendingBytes
        self.failed = failed
        self.failedAge = failedAge
    }
}
