/// How much the webhook outbox holds, as `netrules status` shows it.
package struct OutboxSize: Sendable, Hashable {
    /// Deliveries not yet made: waiting, being attempted, or held for `online`.
    package var pending: Int
    /// The pending entries' size in bytes, as first written.
    package var pendingBytes: Int
    /// Files in `outbox/failed/`: deliveries that failed for good or were dropped at a limit.
    package var failed: Int

    package init(pending: Int, pendingBytes: Int, failed: Int) {
        self.pending = pending
        self.pendingBytes = pendingBytes
        self.failed = failed
    }
}
