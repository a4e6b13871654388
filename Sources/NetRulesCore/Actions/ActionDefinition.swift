/// What one entry of a rule's `do:` list asks for, validated at load time: a closed set of kinds,
/// so every consumer (the runner, previews, the history) handles each one and none is forgotten.
///
/// External plugins are the extension point: any name other than the built-ins is a `plugin`,
/// the executable `netrules-action-NAME`.
public enum Action: Sendable, CustomStringConvertible {
    case run(RunAction)
    case webhook(WebhookAction)
    case write(WriteAction)
    case mqtt(MQTTAction)
    case plugin(PluginAction)

    /// The kind's name as written in YAML (`run`, `webhook`, `write`, `mqtt`, or the plugin's name).
    public var kind: String {
        switch self {
        case .run: "run"
        case .webhook: "webhook"
        case .write: "write"
        case .mqtt: "mqtt"
        case .plugin(let plugin): plugin.name
        }
    }

    /// The action as previews and logs show it: `run: …`, `webhook: POST …`, `write: …`.
    public var description: String {
        switch self {
        case .run(let run): run.description
        case .webhook(let webhook): webhook.description
        case .write(let write): write.description
        case .mqtt(let mqtt): mqtt.description
        case .plugin(let plugin): plugin.description
        }
    }

    /// The `run` action, if this is one.
    public var run: RunAction? { if case .run(let run) = self { run } else { nil } }
    /// The `webhook` action, if this is one.
    public var webhook: WebhookAction? { if case .webhook(let webhook) = self { webhook } else { nil } }
    /// The `write` action, if this is one.
    public var write: WriteAction? { if case .write(let write) = self { write } else { nil } }
    /// The `mqtt` action, if this is one.
    public var mqtt: MQTTAction? { if case .mqtt(let mqtt) = self { mqtt } else { nil } }
    /// The plugin action, if this is one.
    public var plugin: PluginAction? { if case .plugin(let plugin) = self { plugin } else { nil } }
}

/// One kind's validated definition, which knows its case of `Action`.
public protocol ActionDefinition: Sendable, CustomStringConvertible {
    /// The kind's name as written in YAML.
    var kind: String { get }
    /// This definition as an `Action`.
    var action: Action { get }
}

/// One entry of a rule's `do:` list.
public struct ActionSpec: Sendable, CustomStringConvertible {
    /// What the entry does.
    public var action: Action
    /// Whether the rest of the firing's actions still run when this one fails.
    public var continueOnError: Bool

    /// Creates one `do:` entry.
    ///
    /// - Parameters:
    ///   - continueOnError: whether the firing's later actions still run when this one fails
    ///     (`continue_on_error:`).
    public init(_ action: Action, continueOnError: Bool = false) {
        self.action = action
        self.continueOnError = continueOnError
    }

    /// Creates one `do:` entry from a kind's definition, such as a `RunAction`.
    public init(_ definition: some ActionDefinition, continueOnError: Bool = false) {
        self.init(definition.action, continueOnError: continueOnError)
    }

    /// The kind's name.
    public var kind: String { action.kind }

    /// The action's description.
    public var description: String { action.description }
}

/// `run: "COMMAND"` or `run: { command, timeout, cwd, env }`.
public struct RunAction: ActionDefinition {
    /// The command for `/bin/sh -c`; each substituted value is quoted for the context it stands in.
    public var command: ShellCommandTemplate
    /// After this, the whole process group gets SIGTERM, then SIGKILL.
    public var timeout: Duration
    /// `cwd:`: the directory the command runs in; nil keeps the daemon's own.
    public var workingDirectory: String?
    /// Extra environment variables, in the order written.
    public var environment: [(name: String, value: Template)]
    /// `user:`: whom the command runs as; nil for the daemon's own user.
    public var user: ActionUser?

    /// How long a command may run when `timeout:` is not given: 30 seconds. `write` and plugin
    /// actions default to it too.
    public static let defaultTimeout: Duration = .seconds(30)

    /// Creates a `run` action.
    ///
    /// - Parameters:
    ///   - command: the command, already checked for the quoting context of each placeholder.
    ///   - environment: extra environment variables, set in this order; their values are templates.
    public init(
        command: ShellCommandTemplate, timeout: Duration = RunAction.defaultTimeout, workingDirectory: String? = nil,
        environment: [(name: String, value: Template)] = [], user: ActionUser? = nil
    ) {
        self.command = command
        self.timeout = timeout
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.user = user
    }

    /// `run`.
    public var kind: String { "run" }
    /// This action as `.run`.
    public var action: Action { .run(self) }
    /// `run:` and the command as written.
    public var description: String { "run: \(command.source)" }
}

/// `webhook: { url, method, headers, json | body, timeout, retry, when }`.
public struct WebhookAction: ActionDefinition {
    /// What the request carries.
    public enum Body: Sendable {
        case none
        /// A JSON document whose strings are templates, JSON-escaped when rendered.
        case json(ConfigValue)
        /// Raw text.
        case text(Template)
    }

    /// The request's URL, a template rendered when the action runs.
    public var url: Template
    /// The HTTP method, such as `POST`.
    public var method: String
    /// Extra request headers in the order written; their values are templates and may hold secrets.
    public var headers: [(name: String, value: Template)]
    /// What the request carries: nothing, a `json:` document or a `body:` text.
    public var body: Body
    /// How long one attempt may take before it counts as failed.
    public var timeout: Duration
    /// Total attempts, the first included.
    public var attempts: Int
    /// The first retry's delay; each later one doubles, with jitter.
    public var backoff: Duration
    /// Hold delivery while `connectivity` is not `online` (`when: online`).
    public var waitsForOnline: Bool
    /// `pin:`: the server's public key must match one of these (`sha256//…`), on top of normal
    /// certificate verification; a server that does not match is never sent the request.
    public var pins: [String] = []
    /// `ca_file:`: an absolute path to a PEM bundle of the certificate authorities to trust
    /// instead of the system's (an internal CA); nil trusts the system's.
    public var caFile: String?

    /// How long one attempt may take when `timeout:` is not given: 10 seconds.
    public static let defaultTimeout: Duration = .seconds(10)

    /// Creates a `webhook` action; by default a `POST` without a body, 10 seconds per attempt, 5
    /// attempts, and a first retry after 1 second.
    public init(
        url: Template, method: String = "POST", headers: [(name: String, value: Template)] = [], body: Body = .none,
        timeout: Duration = WebhookAction.defaultTimeout, attempts: Int = 5, backoff: Duration = .seconds(1),
        waitsForOnline: Bool = false
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
        self.waitsForOnline = waitsForOnline
    }

    /// `webhook`.
    public var kind: String { "webhook" }
    /// This action as `.webhook`.
    public var action: Action { .webhook(self) }
    /// `webhook:`, the method and the URL as written.
    public var description: String { "webhook: \(method) \(url.source)" }
}

/// `write: { path, content, append, mode, owner, timeout }`.
public struct WriteAction: ActionDefinition {
    /// The target path as written (`~` not yet expanded). Paths are literal: a network-supplied
    /// value must never choose where a file goes.
    public var path: String
    /// What to write, a template rendered when the action runs.
    public var content: Template
    /// Whether to add to the end of the file instead of replacing its contents.
    public var append: Bool
    /// Permission bits for a file the action creates.
    public var mode: UInt32
    /// `owner:`: the account (and group) the file is given to; nil leaves it the daemon's.
    public var owner: FileOwner?
    /// After this the action fails; a write blocked in the kernel (a hung network file system) is abandoned.
    public var timeout: Duration

    /// Creates a `write` action; by default it replaces the file, creates it with mode `0o644` as
    /// the daemon's, and fails after 30 seconds.
    public init(
        path: String, content: Template, append: Bool = false, mode: UInt32 = 0o644, owner: FileOwner? = nil,
        timeout: Duration = RunAction.defaultTimeout
    ) {
        self.path = path
        self.content = content
        self.append = append
        self.mode = mode
        self.owner = owner
        self.timeout = timeout
    }

    /// `write`.
    public var kind: String { "write" }
    /// This action as `.write`.
    public var action: Action { .write(self) }
    /// `write:` and the path as written.
    public var description: String { "write: \(path)" }
}

/// Any other action name: the executable `netrules-action-NAME`, given the firing as JSON on stdin.
public struct PluginAction: ActionDefinition {
    /// The action's name in the rule file; the executable is `netrules-action-NAME`.
    public var name: String
    /// The plugin's own options, as written (strings may hold templates).
    public var options: ConfigValue
    /// How long the plugin may run before the action counts as failed.
    public var timeout: Duration
    /// Where the executable was found at load time, when it was.
    public var executablePath: String?
    /// `user:`: whom the plugin runs as; nil for the daemon's own user.
    public var user: ActionUser?

    /// Creates a plugin action.
    ///
    /// - Parameters:
    ///   - options: the plugin's own options, passed to it as written.
    ///   - executablePath: where `netrules-action-NAME` was found at load time, or nil when it was not.
    public init(
        name: String, options: ConfigValue, timeout: Duration = RunAction.defaultTimeout, executablePath: String?,
        user: ActionUser? = nil
    ) {
        self.name = name
        self.options = options
        self.timeout = timeout
        self.executablePath = executablePath
        self.user = user
    }

    /// The plugin's name.
    public var kind: String { name }
    /// This action as `.plugin`.
    public var action: Action { .plugin(self) }
    /// The plugin's name, marked `(plugin)`.
    public var description: String { "\(name) (plugin)" }
}
