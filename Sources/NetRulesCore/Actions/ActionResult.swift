/// What became of one action of one firing.
///
/// The runner reports one per action, in order, including the actions it skipped, so a log or a
/// test can account for every entry of every `do:` list.
package struct ActionResult: Sendable, CustomStringConvertible {
    /// How the action ended.
    package enum Outcome: Sendable {
        case succeeded
        case failed(ActionError)
        /// A webhook held by `when: online` (or resumed after a restart): it sits in the outbox
        /// and will be delivered in the background; the firing's later actions do not wait.
        case queued
        /// Not run: an earlier action failed, or the firing was dropped.
        case skipped(reason: String)
    }

    package var rule: String
    /// The firing's durable id (`Firing.id`) for results of a submitted firing; nil for a
    /// delivery resumed from the outbox or released by `online`, which belongs to no firing here.
    package var firingID: String?
    package var edge: Edge
    /// The action's position in the rule's `do:` list, from 0.
    package var index: Int
    /// `run`, `webhook`, `write`, or a plugin's name.
    package var kind: String
    package var outcome: Outcome
    /// A process's exit status, when it exited.
    package var exitStatus: Int32?
    /// The signal that ended a process, when one did.
    package var signal: Int32?
    /// The last HTTP status a webhook got.
    package var httpStatus: Int?
    /// HTTP attempts made (webhooks) or 1.
    package var attempts: Int
    package var duration: Duration
    /// The webhook delivery's `Idempotency-Key`.
    package var idempotencyKey: String?
    /// Captured standard output and error of a process, escaped and bounded, for the log.
    package var output: String?
    /// The account a `run:` or plugin action with `user:` ran as, or the one a `write:` with
    /// `owner:` gave its file to, as resolved when it ran (whom `active` meant then).
    package var account: String?
    /// The group a `write:` with `owner:` gave its file to.
    package var group: String?
    /// Set when the firing never ran because coalescing dropped it (see `ActionRunner`): the edge
    /// of the later firing that cancelled or replaced it. Its actions are reported skipped.
    package var coalesced: Edge?
    /// On a result of a firing that ran: how many firings of its rule coalescing dropped while it
    /// ran (or, with every slot busy, while it waited), so far.
    package var coalescedEdges = 0

    package init(rule: String, edge: Edge, index: Int, kind: String, outcome: Outcome = .succeeded) {
        self.rule = rule
        self.edge = edge
        self.index = index
        self.kind = kind
        self.outcome = outcome
        attempts = 0
        duration = .zero
    }

    /// Whether the outcome lets the firing's later actions run. An action that skipped itself
    /// (`user: active` with no graphical session) did nothing wrong: the next ones still run.
    package var letsFiringContinue: Bool {
        switch outcome {
        case .succeeded, .queued, .skipped: true
        case .failed: false
        }
    }

    package var isSuccess: Bool { if case .succeeded = outcome { true } else { false } }

    package var isFailure: Bool { if case .failed = outcome { true } else { false } }

    private func failed(_ code: ActionError.Code) -> Bool {
        if case .failed(let error) = outcome { error.code == code } else { false }
    }

    /// One log line; never contains header values, bodies or secrets.
    package var description: String {
        var text = "rule '\(rule)' \(edge) action \(index) (\(kind)): "
        switch outcome {
        case .succeeded: text += "succeeded"
        case .failed(let error): text += "failed: \(error)"
        case .queued: text += "queued in the outbox"
        case .skipped(let reason): text += "skipped: \(reason)"
        }
        // A failure's message already names the status it ended on ("exited with status 127"):
        // saying it twice made "exited with status 127, exit status 127".
        if let exitStatus, !failed(.exitedWithFailure) { text += ", exit status \(exitStatus)" }
        if let signal, !failed(.killedBySignal) { text += ", signal \(signal)" }
        if let httpStatus, !isFailure { text += ", HTTP \(httpStatus)" }
        if attempts > 1 { text += ", \(attempts) attempts" }
        if let account {
            text += kind == "write" ? ", owner \(account)\(group.map { ":\($0)" } ?? "")" : ", as \(account)"
        }
        if duration > .zero { text += ", " + ActionResult.milliseconds(duration) }
        if coalescedEdges > 0 { text += ", \(coalescedEdges) edge\(coalescedEdges == 1 ? "" : "s") coalesced" }
        return text
    }

    /// `12.3 ms`: one decimal is what a person reading a log wants.
    package static func milliseconds(_ duration: Duration) -> String {
        let tenths = Int64((DurationSyntax.seconds(duration) * 10_000).rounded())
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}
