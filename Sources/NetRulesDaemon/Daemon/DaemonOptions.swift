import NetRulesCore

/// How `netrules run` was asked to run.
public struct DaemonOptions: Sendable {
    /// Rule files and directories.
    public var ruleFiles: [String]
    public var paths: DaemonPaths
    /// The daemon's environment: inherited by actions, read by `{{env.NAME}}`.
    public var environment: [String: String]
    public var logger: Logger
    /// Receives sd_notify states (`READY=1`, `RELOADING=1`, `STOPPING=1`, `STATUS=…`).
    public var notify: @Sendable (String) -> Void
    /// A reason not to trust a rule file or plugin (writable by others while running as root), or nil.
    public var trustProblem: @Sendable (_ path: String, _ kind: FileTrust.Kind) -> String?
    /// How long shutdown waits for running actions before giving up on them.
    public var shutdownGrace: Duration
    /// How many rules' firings may run at once.
    public var concurrency: Int
    /// How many firings `history` keeps (`<state-dir>/history.jsonl`); 0 keeps none.
    public var historyLimit: Int

    public init(
        ruleFiles: [String], paths: DaemonPaths, environment: [String: String], logger: Logger,
        notify: @escaping @Sendable (String) -> Void = { _ in },
        trustProblem: @escaping @Sendable (String, FileTrust.Kind) -> String? = { _, _ in nil },
        shutdownGrace: Duration = .seconds(30), concurrency: Int = 4, historyLimit: Int = 1000
    ) {
        self.ruleFiles = ruleFiles
        self.paths = paths
        self.environment = environment
        self.logger = logger
        self.notify = notify
        self.trustProblem = trustProblem
        self.shutdownGrace = shutdownGrace
        self.concurrency = concurrency
        self.historyLimit = historyLimit
    }
}
