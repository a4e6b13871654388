import NetRulesCore

/// What must survive a restart: each rule's state and the firings not yet fully handed to the
/// action runner. Stored as `state.json` in the state directory, replaced atomically, plus the
/// changes since then as lines of the journal's segments (`StateJournal`), each a `JournalDelta`: a
/// document of the same shape holding only what changed. Both are written and read by one codec
/// (`PersistedState+Coding.swift`).
///
/// Engine instants are relative to a process's start, so deadlines are stored as wall-clock
/// seconds since the Unix epoch and mapped back onto the new process's clock when loaded.
package struct PersistedState {
    package struct SavedRule: Equatable {
        package var fingerprint: String
        package var confirmed: Bool?
        package var cooldownUntil: Double?
        package var hold: (target: Bool, deadline: Double)?
        /// `once_per:` deadlines per edge (`enter`, `exit`), as wall-clock seconds.
        package var oncePerUntil: [String: Double] = [:]
        /// The rule's `Rule.identity` (its condition's digest); nil in a file from an older netrules.
        package var identity: String? = nil

        package static func == (a: SavedRule, b: SavedRule) -> Bool {
            a.fingerprint == b.fingerprint && a.confirmed == b.confirmed && a.cooldownUntil == b.cooldownUntil
                && a.hold?.target == b.hold?.target && a.hold?.deadline == b.hold?.deadline
                && a.oncePerUntil == b.oncePerUntil && a.identity == b.identity
        }
    }

    /// A firing whose actions have not all reported a result yet.
    package struct SavedFiring {
        package var id: String
        package var rule: String
        package var fingerprint: String
        package var edge: Edge
        package var time: String
        package var facts: [(FactKey, FactState)]
        /// The rule's action count when it fired (a reload may change the rule's list); nil in a
        /// file from an older netrules.
        package var actionCount: Int?
        /// Actions before this index have reported: a restart resumes here.
        package var nextAction: Int = 0
    }

    /// A rule paused by a command (`RulePause`): who paused it and when, as wall-clock seconds.
    package struct SavedPause: Equatable {
        package var by: String
        package var since: Double
    }

    package var rules: [String: SavedRule] = [:]
    package var inflight: [SavedFiring] = []
    /// The paused rules by name; empty in a file from before commands (`mqtt: commands: true`).
    package var paused: [String: SavedPause] = [:]
    package var nextFiringNumber = 1
    /// In `state.json`: the kernel's boot id when it was written (`/proc/sys/kernel/random/boot_id`);
    /// nil in a file from an older netrules (then a start counts as one within the same boot).
    package var bootID: String?
    /// In `state.json`: the first journal segment this state does not hold (it holds every segment
    /// before it); nil in a file from before segments, after which every segment is read.
    package var journalFrom: Int?

    package static let fileName = "state.json"

    /// Applies one journal line. Lines set values rather than adjust them, so replaying a line the
    /// state already holds changes nothing as long as the state is what the lines made it; a
    /// snapshot can hold less than its lines (the start drops firings of changed rules, a line that
    /// could not be written is only in the snapshot), so a covered segment is skipped by
    /// `journalFrom` instead of replayed.
    package mutating func apply(_ delta: JournalDelta) {
        for name in delta.removedRules { rules[name] = nil }
        for (name, rule) in delta.rules { rules[name] = rule }
        let retired = Set(delta.retiredFirings)
        inflight.removeAll { retired.contains($0.id) }
        for firing in delta.inflight {
            if let index = inflight.firstIndex(where: { $0.id == firing.id }) {
                inflight[index] = firing
            } else {
                inflight.append(firing)
            }
        }
        nextFiringNumber = max(nextFiringNumber, delta.nextFiringNumber)
        if let paused = delta.paused { self.paused = paused }
    }

    /// What a starting daemon restores from the bytes of `state.json` (nil: no file) and the lines
    /// of the journal's segments (`StateJournal`), oldest first: the state file with every line of
    /// the segments it does not cover (`journalFrom`) that decodes applied in order.
    /// - Returns: the state (nil when there is neither), why the state file could not be used (it
    ///   is then left out, and every segment is read), and how many journal lines were damaged and
    ///   skipped.
    package static func restore(stateFile: [UInt8]?, segments: [(number: Int, lines: [[UInt8]])]) -> (
        state: PersistedState?, stateFileProblem: JSONValue.ShapeError?, skippedLines: Int
    ) {
        var restored: PersistedState?
        var problem: JSONValue.ShapeError?
        if let stateFile {
            do {
                restored = try PersistedState(decoding: stateFile)
            } catch {
                problem = error
            }
        }
        let from = restored?.journalFrom ?? 0
        var skipped = 0
        for segment in segments where segment.number >= from {
            for line in segment.lines {
                // A damaged line is counted and reported by the caller; the lines
                // after it still apply, since each sets values rather than adjusting them.
                guard let delta = try? JournalDelta(decoding: line) else {
                    skipped += 1
                    continue
                }
                restored = restored ?? PersistedState()
                restored!.apply(delta)
            }
        }
        return (restored, problem, skipped)
    }

    /// `restore(stateFile:segments:)` with lines that all follow the state file.
    package static func restore(stateFile: [UInt8]?, journal: [[UInt8]]) -> (
        state: PersistedState?, stateFileProblem: JSONValue.ShapeError?, skippedLines: Int
    ) {
        restore(stateFile: stateFile, segments: [(.max, journal)])
    }
}
