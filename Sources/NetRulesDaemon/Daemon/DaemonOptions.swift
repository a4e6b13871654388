import NetRulesActions
import NetRulesCore
import NetRulesLinux
import NetRulesProbes
import NetRulesSystem

/// How `netrules run` was asked to run.
package struct DaemonOptions: Sendable {
    /// The event loop every task, timer and wait of the daemon runs on: the `netrules`
    /// executable's main thread, a thread of its own in tests.
    package var loop: ThreadExecutor
    /// Rule files and directories.
    package var ruleFiles: [String]
    package var paths: DaemonPaths
    /// The daemon's environment: inherited by actions, read by `{{env.NAME}}`.
    package var environment: [String: String]
    package var logger: Logger
    /// Receives sd_notify states (`READY=1`, `RELOADING=1`, `STOPPING=1`, `STATUS=…`).
    package var notify: @Sendable (String) -> Void
    /// A reason not to trust a rule file or plugin (writable by others while running as root), or nil.
    package var trustProblem: @Sendable (_ path: String, _ kind: FileTrust.Kind) -> String?
    /// How long shutdown waits for running actions before giving up on them.
    package var shutdownGrace: Duration
    /// How many rules' firings may run at once.
    package var concurrency: Int
    /// How many firings `history` keeps (`<state-dir>/history.jsonl`); 0 keeps none.
    package var historyLimit: Int
    /// How much the webhook outbox may hold, and how long `outbox/failed/` keeps what failed.
    package var outboxLimits: OutboxLimits
    /// How many webhook requests may be under way at once to one host (`run --webhook-concurrency`);
    /// `ActionRunner.webhookConcurrencyTotal` in all.
    package var webhookConcurrency = ActionRunner.defaultWebhookConcurrency
    /// The services the daemon is wired to; tests replace them.
    package var services = DaemonServices()

    package init(
        loop: ThreadExecutor, ruleFiles: [String], paths: DaemonPaths, environment: [String: String], logger: Logger,
        notify: @escaping @Sendable (String) -> Void = { _ in },
        trustProblem: @escaping @Sendable (String, FileTrust.Kind) -> String? = { _, _ in nil },
        shutdownGrace: Duration = .seconds(30), concurrency: Int = ActionRunner.defaultConcurrency,
        historyLimit: Int = 1000,
        outboxLimits: OutboxLimits = .default
    ) {
        self.loop = loop
        self.ruleFiles = ruleFiles
        self.paths = paths
        self.environment = environment
        self.logger = logger
        self.notify = notify
        self.trustProblem = trustProblem
        self.shutdownGrace = shutdownGrace
        self.concurrency = concurrency
        self.historyLimit = historyLimit
        self.outboxLimits = outboxLimits
    }
}

/// What the daemon is wired to, each made when the daemon starts: nil means the real one (the
/// action runner, the state files, the observers of `ObserverPlan`). Tests pass stand-ins to
/// drive the daemon without root, a network or child processes.
package struct DaemonServices: Sendable {
    /// Where firings go.
    package var actions: (@Sendable (DaemonOptions) -> any ActionSink)?
    /// Where the persisted state lives.
    package var stateStore: (@Sendable (DaemonOptions) -> any StateStore)?
    /// The observers a rule set needs, each under an identity that changes with its configuration.
    package var observers: (@Sendable (RuleSet, SignalSampling, Logger) -> [ObserverPlan.Entry])?
    /// How places' proofs are made; TLS handshakes (`PlaceProber.handshakes()`) unless set.
    package var proofs: PlaceProber.Prove?
    /// Services that live beside the core (the control socket, the rule-file watcher, the signal
    /// handler), started in this order once the core started and before the observers, and
    /// stopped in reverse once the runner drained, so `status` answers while actions finish.
    package var attached: [AttachedService] = []

    package init() {}
}

/// A long-running service the daemon starts and stops with itself; see `DaemonServices.attached`.
package struct AttachedService: Sendable {
    /// What logs call it.
    package var name: String
    /// Runs until its task is cancelled, given the daemon (to query, reload, shut down).
    package var run: @Sendable (Daemon) async throws -> Void

    package init(_ name: String, run: @escaping @Sendable (Daemon) async throws -> Void) {
        self.name = name
        self.run = run
    }
}
