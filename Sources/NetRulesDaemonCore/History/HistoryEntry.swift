import NetRulesCore

/// One firing as `netrules history` shows it: when, which rule and edge, the facts the rule read,
/// each action as rendered and what became of it, or why the firing was dropped.
///
/// Its JSON form (`document`) is both a line of `history --json` and a line of the daemon's
/// `history.jsonl`, so the file, the control socket and the command print the same thing.
/// Every string in it is bounded when it is recorded (see `FiringHistory`).
package struct HistoryEntry: Sendable, Equatable {
    /// A fact the rule read: its value as JSON (`null` when known absent), or nil when unknown.
    package struct Fact: Sendable, Equatable {
        package var key: String
        package var value: JSONValue?

        package init(key: String, value: JSONValue?) {
            self.key = key
            self.value = value
        }
    }

    /// What became of one action.
    package struct Outcome: Sendable, Equatable {
        /// `pending` (not reported yet), `ok`, `failed`, `queued` (a webhook the outbox delivers
        /// later) or `skipped`.
        package var status: String
        package var exitStatus: Int?
        package var signal: Int?
        package var httpStatus: Int?
        /// Milliseconds, one decimal.
        package var durationMilliseconds: Double?
        /// The start of the process's output (`stdout: …`, `stderr: …`), escaped, at most 1 KiB.
        package var output: String?
        /// Webhook attempts after the first.
        package var retries: Int?
        /// Why it failed or was skipped.
        package var error: String?
        /// The account a `run:` or plugin action with `user:` ran as, or the one a `write:` with
        /// `owner:` gave its file to.
        package var account: String?
        /// The group a `write:` with `owner:` gave its file to.
        package var group: String?

        package init(status: String) { self.status = status }

        package static let pending = Outcome(status: "pending")
    }

    /// One action of the firing, as the runner rendered it (secrets as `<secret>`).
    package struct Action: Sendable, Equatable {
        /// `run`, `webhook`, `write` or the plugin's name.
        package var type: String
        /// `notify-send 'Joined Office'`, `POST https://…`, `PATH (append): TEXT`.
        package var rendered: String
        package var outcome: Outcome
        /// A webhook's `Idempotency-Key`: how a delivery finished later is matched to its firing.
        package var idempotencyKey: String?

        package init(type: String, rendered: String, outcome: Outcome = .pending, idempotencyKey: String? = nil) {
            self.type = type
            self.rendered = rendered
            self.outcome = outcome
            self.idempotencyKey = idempotencyKey
        }
    }

    /// Why an edge did not run: `cooldown`, `once_per`, `coalesced` (it waited behind a running
    /// firing of its rule, and a later edge cancelled or replaced it), `stale` (the same, from
    /// before coalescing), or `paused` (a command paused the rule).
    package struct Drop: Sendable, Equatable {
        package var reason: String
        /// When the window that dropped it ends (RFC 3339), for `cooldown` and `once_per`.
        package var until: String?

        package init(reason: String, until: String? = nil) {
            self.reason = reason
            self.until = until
        }
    }

    /// The firing's id (`firing.id` in the log); a dropped edge gets one of its own.
    package var id: String
    /// RFC 3339, UTC.
    package var time: String
    package var rule: String
    package var edge: Edge
    /// The facts the rule's condition reads, in the rule's order, as they were at that moment (read
    /// back from a document: the known ones, then the unknown ones).
    package var facts: [Fact]
    package var actions: [Action]
    package var dropped: Drop?
    /// How many firings of the rule were coalesced away while this one ran (`3 edges coalesced`).
    package var coalesced: Int?

    package init(
        id: String, time: String, rule: String, edge: Edge, facts: [Fact], actions: [Action], dropped: Drop? = nil
    ) {
        self.id = id
        self.time = time
        self.rule = rule
        self.edge = edge
        self.facts = facts
        self.actions = actions
        self.dropped = dropped
    }
}
