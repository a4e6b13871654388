import NetRulesCore

/// One line of the state journal: what changed in the persisted state since the line before —
/// the rules whose saved state changed and those that went, the firings that are new or got
/// further and those that left the in-flight list — so a line costs what changed, not what is
/// saved. `PersistedState.apply(_:)` replays it.
///
/// Written and read by the state's one codec (`PersistedState+Coding.swift`): the same document as
/// `state.json`, holding only the changes, plus `removed` and `retired`.
package struct JournalDelta {
    /// The rules whose saved state is new or changed.
    package var rules: [String: PersistedState.SavedRule] = [:]
    /// Rules whose saved state went (their rule was removed, or has no state worth keeping any more).
    package var removedRules: [String] = []
    /// The firings that are new or got further.
    package var inflight: [PersistedState.SavedFiring] = []
    /// Firings that left the in-flight list.
    package var retiredFirings: [String] = []
    package var nextFiringNumber = 1
    /// Every paused rule, when the paused rules changed (they are few: all of them, not a change);
    /// nil when they did not.
    package var paused: [String: PersistedState.SavedPause]?

    package init() {}

    /// The line between `rules.old` and `rules.new` (nil: the rules did not change) with the
    /// in-flight changes as `InflightFirings.takeChanges()` reports them.
    package init(
        nextFiring: Int, rules: (old: [String: PersistedState.SavedRule], new: [String: PersistedState.SavedRule])?,
        inflight: (changed: [PersistedState.SavedFiring], retired: [String]),
        paused: [String: PersistedState.SavedPause]? = nil
    ) {
        nextFiringNumber = nextFiring
        self.paused = paused
        if let rules {
            for (name, rule) in rules.new where rules.old[name] != rule { self.rules[name] = rule }
            removedRules = rules.old.keys.filter { rules.new[$0] == nil }.sorted()
        }
        (self.inflight, retiredFirings) = inflight
    }

    /// The line's bytes (without its newline).
    package func encoded() -> [UInt8] {
        PersistedState.document(
            rules: rules, inflight: inflight, nextFiring: nextFiringNumber, removed: removedRules,
            retired: retiredFirings, paused: paused
        ).compactBytes
    }

    /// Reads one journal line.
    /// - Throws: `JSONValue.ShapeError` naming what is wrong and where.
    package init(decoding bytes: [UInt8]) throws(JSONValue.ShapeError) {
        let document = try JSONValue.Members(PersistedState.parse(bytes))
        let changes = try PersistedState(document: document)
        rules = changes.rules
        inflight = changes.inflight
        nextFiringNumber = changes.nextFiringNumber
        removedRules = try document.strings("removed")
        retiredFirings = try document.strings("retired")
        if document["paused"] != nil { paused = changes.paused }
    }
}
