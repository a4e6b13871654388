/// What one entry of a rule's `do:` list asks for, validated at load time.
///
/// Each action kind (built-in `run`, `webhook`, `write`, or an external plugin) has its own
/// definition type; the action runner looks executors up by `kind`.
public protocol ActionDefinition: Sendable, CustomStringConvertible {
    /// The kind's name as written in YAML (`run`, `webhook`, `write`, or the plugin's name).
    var kind: String { get }
}

/// One entry of a rule's `do:` list.
public struct ActionSpec: Sendable, CustomStringConvertible {
    /// The validated definition.
    public var definition: any ActionDefinition
    /// Whether the rest of the firing's actions still run when this one fails.
    public var continueOnError: Bool

    public init(_ definition: any ActionDefinition, continueOnError: Bool = false) {
        self.definition = definition
        self.continueOnError = continueOnError
    }

    /// The kind's name.
    public var kind: String { definition.kind }

    public var description: String { definition.description }
}

/// `run: "COMMAND"` or `run: { command, timeout, cwd, env }`.
public struct RunAction: ActionDefinition {
    /// The command for `/bin/sh -c`; each substituted value is quoted for the context it stands in.
    public var command: ShellCommandTemplate
    /// After this, the whole process group gets SIGTERM, then SIGKILL.
    public var timeout: Duration
    public var workingDirectory: String?
    /// Extra environment variables, in the order written.
    public var environment: [(name: String, value: Template)]

    public static let defaultTimeout: Duration = .seconds(30)

    public init(
        command: ShellCommandTemplate, timeout: Duration = RunAction.defaultTimeout, workingDirectory: String? = nil,
        environment: [(name: String, value: Template)] = []
    ) {
        self.command = command
        self.timeout = timeout
        self.workingDirectory = workingDirectory
        self.environment = environment
    }

    public var kind: String { "run" }
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

    public var url: Template
    public var method: String
    public var headers: [(name: String, value: Template)]
    public var body: Body
    public var timeout: Duration
    /// Total attempts, the first included.
    public var attempts: Int
    /// The first retry's delay; each later one doubles, with jitter.
    public var backoff: Duration
    /// Hold delivery while `connectivity` is not `online` (`when: online`).
    public var waitsForOnline: Bool

    public static let defaultTimeout: Duration = .seconds(10)

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

    public var kind: String { "webhook" }
    public var description: String { "webhook: \(method) \(url.source)" }
}

/// `write: { path, content, append, mode, timeout }`.
public struct WriteAction: ActionDefinition {
    /// The target path as written (`~` not yet expanded). Paths are literal: a network-supplied
    /// value must never choose where a file goes.
    public var path: String
    public var content: Template
    public var append: Bool
    /// Permission bits for a file the action creates.
    public var mode: UInt32
    /// After this the action fails; a write blocked in the kernel (a hung network file system) is abandoned.
    public var timeout: Duration

    public init(
        path: String, content: Template, append: Bool = false, mode: UInt32 = 0o644,
        timeout: Duration = RunAction.defaultTimeout
    ) {
        self.path = path
        self.content = content
        self.append = append
        self.mode = mode
        self.timeout = timeout
    }

    public var kind: String { "write" }
    public var description: String { "write: \(path)" }
}

/// Any other action name: the executable `netrules-action-NAME`, given the firing as JSON on stdin.
public struct PluginAction: ActionDefinition {
    public var name: String
    /// The plugin's own options, as written (strings may hold templates).
    public var options: ConfigValue
    public var timeout: Duration
    /// Where the executable was found at load time, when it was.
    public var executablePath: String?

    public init(
        name: String, options: ConfigValue, timeout: Duration = RunAction.defaultTimeout, executablePath: String?
    ) {
        self.name = name
        self.options = options
        self.timeout = timeout
        self.executablePath = executablePath
    }

    public var kind: String { name }
    public var description: String { "\(name) (plugin)" }
}
