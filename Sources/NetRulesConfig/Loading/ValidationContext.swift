import NetRulesCore

/// Collects the diagnostics of one file while the schema layer walks its tree.
///
/// Every reader reports *all* problems it finds and returns nil for a value it could not
/// read, so one bad rule never hides the diagnostics of another (STYLE §10).
public struct ValidationContext: Sendable {
    /// The file as the user named it.
    public let file: String
    /// The diagnostics so far, unsorted.
    public private(set) var diagnostics: [Diagnostic] = []
    /// The file's text, when the caller has it: lets a diagnostic about a piece of a block or
    /// quoted scalar point at that piece's own line and column.
    public var source: SourceText?
    /// The environment `{{env.NAME}}` will read, when the caller knows it (`check`, `simulate`,
    /// the daemon): each placeholder whose variable it does not set, or sets empty, is a warning.
    /// Nil checks nothing.
    public var environment: [String: String]?
    /// Whether `environment` is the daemon's own (the daemon reading its rules) rather than that of
    /// a command beside it (`check`, `simulate`): the warnings then speak of the daemon's
    /// environment and give no advice for `check`.
    public var environmentIsTheDaemons = false
    /// Says why a file the rules name for the daemon to read (a webhook's `ca_file`) cannot be
    /// read here (`does not exist`, …), or nil when it can; each problem is a warning. Injected,
    /// because looking at the file system is the OS layer's job. Nil checks nothing.
    public var fileProblem: (@Sendable (String) -> String?)?
    /// Says why the program a `run:` command starts (its first word, neither a shell builtin nor
    /// a path with a `/` that exists) will not be found (`is not on PATH`), or nil; each problem
    /// is a warning. Nil checks nothing.
    public var programProblem: (@Sendable (String) -> String?)?
    /// Says why an action's `user:` names no user the daemon can run it as (`no such user`), or
    /// nil; each problem is an error. Nil checks nothing.
    public var userProblem: (@Sendable (String) -> String?)?
    /// Says why a `write:` action's `owner: user:group` names no group of this system, or nil;
    /// each problem is an error, as `userProblem`'s are. Nil checks nothing.
    public var groupProblem: (@Sendable (String) -> String?)?
    /// Says why the daemon, as root, will refuse to run a file a `run:` command names (its
    /// program or script: `ShellProgramReference`), given the word, its role, the `PATH` the
    /// command searches (nil: the daemon's) and the action's `cwd:`; nil when it will run it.
    /// Each problem is a warning at the word. Injected, because looking at the file system is the
    /// OS layer's job. Nil checks nothing.
    public var programTrustProblem: ProgramTrustCheck?

    /// See `programTrustProblem`.
    public typealias ProgramTrustCheck =
        @Sendable (
            _ word: String, _ role: ShellProgramReference.Role, _ searchPath: String?, _ workingDirectory: String?
        ) -> String?
    /// The name of the rule being read, once known: a `run:` command's `{{rule}}` stands for it.
    public var ruleName: String?
    /// Whether some file of the rule set has an `mqtt:` section (the broker an `mqtt:` action
    /// publishes to), when the caller knows: false makes each `mqtt:` action an error. Nil checks
    /// nothing (a rule read alone).
    public var hasMQTTSection: Bool?
    /// The names `mqtt:`'s `subscribe:` declares: a condition or template may read `mqtt.NAME`
    /// only for one of them, else it is an error. Nil checks nothing (a lone condition or
    /// template read outside a rule file).
    public var subscribedNames: [String]?

    /// The `run:` commands read so far in this load, shared by its contexts; nil reads each anew.
    var shellCommandReadings: ShellCommandReadings?

    /// Creates an empty context for `file`, the file's name as the user gave it; diagnostics print it.
    public init(file: String) {
        self.file = file
    }

    /// Whether an error (not a warning) has been reported.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// Reports an error at `mark`.
    public mutating func error(_ message: String, at mark: SourceMark, path: KeyPath, hint: String? = nil) {
        diagnostics.append(Diagnostic(.error, message, file: file, mark: mark, keyPath: path.description, hint: hint))
    }

    /// Reports a warning at `mark`.
    public mutating func warning(_ message: String, at mark: SourceMark, path: KeyPath, hint: String? = nil) {
        diagnostics.append(Diagnostic(.warning, message, file: file, mark: mark, keyPath: path.description, hint: hint))
    }

    /// Reports a value of the wrong shape: "expected a list, found a mapping".
    public mutating func expected(_ what: String, found node: YAMLNode, path: KeyPath) {
        error("expected \(what), found \(node.kindDescription)", at: node.mark, path: path)
    }

    /// Appends diagnostics from elsewhere (the YAML layer).
    public mutating func append(_ more: [Diagnostic]) {
        diagnostics += more
    }
}
