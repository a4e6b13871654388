import NetRulesCore
import NetRulesDaemonCore

/// Where the daemon's persisted state lives: `state.json` and the journal in the state directory
/// (`StateFiles`), or memory in tests.
package protocol StateStore: AnyObject {
    /// The saved state (`state.json` with the journal's lines applied), nil when there is none.
    /// Opens the journal for appending; `journalOpen` tells whether that worked.
    func open() -> (state: PersistedState?, journalOpen: Bool)
    /// Appends one journal line (one write(2)). A store logs its own failures (the daemon only
    /// writes a snapshot instead), once while they go on.
    func append(_ line: JournalDelta) throws
    /// Makes what was appended durable, without waiting.
    func requestFlush()
    /// Replaces the whole state and empties the journal, without waiting: what is appended from now
    /// on follows the snapshot. One that cannot be written is reported to `failed` (from any thread).
    func writeSnapshot(_ state: PersistedState, failed: @escaping @Sendable (StateFileError) -> Void)
    /// Waits until the snapshots asked for so far are written (or failed) and what was appended is
    /// on the disk: at shutdown.
    nonisolated(nonsending) func finishWriting() async
    /// Puts the saved state aside because it cannot be used.
    func setAside(because reason: String)
}
