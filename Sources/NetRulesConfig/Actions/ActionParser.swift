public import NetRulesCore

/// Reads a rule's `do:` list into validated action specs.
public struct ActionParser: Sendable {
    /// Collects the diagnostics; read them here once parsing is done.
    public var context: ValidationContext
    /// The action kinds `do:` may use.
    public let registry: Registry
    /// Finds the executable `netrules-action-NAME`; nil when there is none. Injected, because
    /// looking at the file system is the OS layer's job, not the portable config's.
    public let findPlugin: @Sendable (String) -> String?

    /// Keys allowed beside the action's own key in one `do:` entry.
    static let entryKeys = ["continue_on_error", "timeout", "user"]

    /// Creates a parser that reports into `context`.
    ///
    /// - Parameters:
    ///   - findPlugin: finds the executable for an action name that is not built in; nil refuses
    ///     the action.
    public init(context: ValidationContext, registry: Registry, findPlugin: @escaping @Sendable (String) -> String?) {
        self.context = context
        self.registry = registry
        self.findPlugin = findPlugin
    }

    /// Reads the `do:` list.
    public mutating func actions(_ node: YAMLNode, at path: KeyPath) -> [ActionSpec]? {
        guard let list = context.sequence(node, path, what: "a list of actions") else { return nil }
        if list.items.isEmpty {
            context.error("a rule needs at least one action", at: list.mark, path: path)
            return nil
        }
        var specs: [ActionSpec] = []
        var ok = true
        for (i, item) in list.items.enumerated() {
            if let spec = action(item, at: path.index(i)) { specs.append(spec) } else { ok = false }
        }
        return ok ? specs : nil
    }

    /// Reads one `do:` entry: exactly one action key, plus `continue_on_error`.
    mutating func action(_ node: YAMLNode, at path: KeyPath) -> ActionSpec? {
        guard let mapping = node.mapping else {
            context.expected("an action such as '{ run: COMMAND }'", found: node, path: path)
            return nil
        }
        let actionEntries = mapping.entries.filter { !Self.entryKeys.contains($0.key.text) }
        guard let (key, value) = actionEntries.first else {
            context.error(
                "the action names no kind", at: mapping.mark, path: path, hint: "start it with run:, webhook: or write:"
            )
            return nil
        }
        if actionEntries.count > 1 {
            context.error(
                "one action has one kind; found '\(key.text)' and '\(actionEntries[1].key.text)'",
                at: actionEntries[1].key.mark, path: path.key(actionEntries[1].key.text),
                hint: "split them into two entries of the 'do:' list")
            return nil
        }
        var continueOnError = false
        var ok = true
        if let c = mapping["continue_on_error"] {
            // Keep reading the action even when this is wrong, so its own problems are reported too.
            if let b = context.bool(c, path.key("continue_on_error")) { continueOnError = b } else { ok = false }
        }
        let action: Action?
        if let kind = registry.actionKind(key.text) {
            if let t = mapping.entry("timeout") {
                context.error(
                    "'timeout' belongs inside '\(key.text)'", at: t.key.mark, path: path.key("timeout"),
                    hint: "write '\(key.text): { ..., timeout: \(t.value.scalar?.text ?? "30s") }'")
                return nil
            }
            if let u = mapping.entry("user") {
                let name = u.value.scalar?.text ?? "NAME"
                let hint =
                    switch key.text {
                    case "run": "write 'run: { command: ..., user: \(name) }'"
                    case "write":
                        "a file write runs inside the daemon; 'write: { ..., owner: \(name) }' gives the file to that user"
                    default: "a webhook runs inside the daemon, as its user"
                    }
                context.error(
                    key.text == "run"
                        ? "'user' belongs inside 'run'" : "'user' applies to run and plugin actions, not '\(key.text)'",
                    at: u.key.mark, path: path.key("user"), hint: hint)
                return nil
            }
            action = kind.parse(value, at: path.key(key.text), in: &self)
        } else {
            var user: ActionUser?
            if let u = mapping["user"] {
                user = context.actionUser(u, path.key("user"))
                if user == nil { ok = false }
            }
            action = plugin(key, value, timeout: mapping["timeout"], at: path).map {
                var plugin = $0
                plugin.user = user
                return plugin.action
            }
            if action != nil, let user { context.warnSecretsHanded(to: user, in: value, path: path.key(key.text)) }
        }
        guard ok, let action else { return nil }
        return ActionSpec(action, continueOnError: continueOnError)
    }

    private mutating func plugin(_ key: YAMLScalar, _ value: YAMLNode, timeout: YAMLNode?, at path: KeyPath)
        -> PluginAction?
    {
        let builtins = registry.actionKinds.map(\.name)
        if let near = EditDistance.closest(to: key.text, among: builtins), EditDistance.between(key.text, near) <= 2 {
            context.error(
                "unknown action '\(key.text)'", at: key.mark, path: path.key(key.text), hint: "did you mean '\(near)'?")
            return nil
        }
        guard PluginAction.isValidName(key.text) else {
            context.error(
                "'\(key.text)' is not a valid action name", at: key.mark, path: path.key(key.text),
                hint: "plugin names use letters, digits, '-' and '_'")
            return nil
        }
        var duration = RunAction.defaultTimeout
        if let timeout {
            guard let d = context.duration(timeout, path.key("timeout")) else { return nil }
            duration = d
        }
        guard let options = context.configValue(value, path.key(key.text)) else { return nil }
        guard let executable = findPlugin(key.text) else {
            context.error(
                "no action plugin '\(key.text)': 'netrules-action-\(key.text)' was not found in the plugin directories or PATH",
                at: key.mark, path: path.key(key.text),
                hint:
                    "built-in actions are \(builtins.joined(separator: ", ")); see /usr/share/doc/netrules/plugins.md (docs/plugins.md in the source tree) to add one"
            )
            return nil
        }
        return PluginAction(name: key.text, options: options, timeout: duration, executablePath: executable)
    }
}

extension PluginAction {
    /// Whether `name` can name a plugin executable: letters, digits, `-`, `_`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix("-")
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            }
    }
}

extension ValidationContext {
    /// `user:` of a run or plugin action: `active`, or an account that exists (`userProblem`).
    public mutating func actionUser(_ node: YAMLNode, _ path: KeyPath) -> ActionUser? {
        guard let text = text(node, path, what: "a user name or 'active'") else { return nil }
        let user = ActionUser(text)
        if case .named(let name) = user, let problem = userProblem?(name) {
            error(
                problem, at: node.mark, path: path,
                hint: "name an account of this system, or 'active' for the user of the graphical session")
            return nil
        }
        return user
    }

    /// `owner:` of a write action: `user` or `user:group`, the user read as `user:` is (`active`,
    /// or an account that exists: `userProblem`), the group one that exists (`groupProblem`).
    /// A problem with the group points at the group.
    mutating func fileOwner(_ node: YAMLNode, _ path: KeyPath) -> FileOwner? {
        guard let text = text(node, path, what: "'user' or 'user:group'") else { return nil }
        guard let owner = FileOwner(text), let scalar = node.scalar else {
            error(
                "'\(text)' is not an owner: expected 'user' or 'user:group'", at: node.mark, path: path,
                hint: "name an account of this system, with a group after ':' if not its primary one")
            return nil
        }
        var ok = true
        if case .named(let name) = owner.user, let problem = userProblem?(name) {
            error(
                problem, at: node.mark, path: path,
                hint: "name an account of this system, or 'active' for the user of the graphical session")
            ok = false
        }
        if let group = owner.group, let problem = groupProblem?(group) {
            let offset = owner.user.description.unicodeScalars.count + 1
            error(
                problem, at: mark(ofOffset: offset, in: scalar), path: path,
                hint: "name a group of this system, or leave ':\(group)' out for the user's primary group")
            ok = false
        }
        return ok ? owner : nil
    }

    /// Warns when the program a `run:` command starts is not on `PATH` (`programProblem`): the
    /// first word of a command the runner starts directly (`ShellSimpleCommand`, so never a
    /// builtin or a keyword). A name with a `/` is not looked up: an absolute path is the author's
    /// own choice, often a script installed with the rules (the shipped
    /// `/usr/local/bin/vpn-toggle`), and a relative one depends on the working directory.
    mutating func checkProgram(of command: ShellCommandTemplate, node: YAMLNode, path: KeyPath) {
        guard let programProblem, let simple = command.simpleCommand, let scalar = node.scalar else { return }
        let name = String(decoding: simple.commandName, as: UTF8.self)
        guard !name.contains("/"), let problem = programProblem(name) else { return }
        let offset = command.source.unicodeScalars.prefix { $0 == " " || $0 == "\t" || $0 == "\n" }.count
        warning(
            problem, at: mark(ofOffset: offset, in: scalar), path: path,
            hint: "install it, or write its absolute path; the daemon searches its own PATH")
    }

    /// Warns at each file `command` names (`ShellProgramReference`) that the daemon, as root,
    /// will refuse to run (`programTrustProblem`): one others can write, or in a directory others
    /// can write. Only for an action that runs as root; `searchPath` is the action's own literal
    /// `PATH`, `workingDirectory` its `cwd:`.
    mutating func checkTrust(
        of command: ShellCommandTemplate, node: YAMLNode, path: KeyPath, searchPath: String? = nil,
        workingDirectory: String? = nil
    ) {
        guard let programTrustProblem, let scalar = node.scalar else { return }
        for reference in ShellProgramReference.references(in: command) {
            guard let problem = programTrustProblem(reference.word, reference.role, searchPath, workingDirectory)
            else { continue }
            warning(
                problem + "; netrules will not run it as root", at: mark(ofOffset: reference.offset, in: scalar),
                path: path,
                hint: "whoever can change this file can run anything as root; make it root's alone, "
                    + "or give the action a 'user:'")
        }
    }

    /// Warns at each `{{env.NAME}}` in `node` (a command, `env:` values, a plugin's options, at
    /// any depth) of an action run as `user`: the daemon renders it (the rule author's choice),
    /// which hands that secret of root's environment to the user. Nothing for `user: root`.
    mutating func warnSecretsHanded(to user: ActionUser, in node: YAMLNode, path: KeyPath) {
        if case .named("root") = user { return }
        switch node {
        case .scalar(let scalar):
            // A template that does not parse was reported where it was read.
            guard let template = try? Template(scalar.text) else { return }
            for (name, offset) in zip(template.names, template.placeholderOffsets) {
                guard case .environment(let variable) = name else { continue }
                let whom =
                    switch user {
                    case .named(let account): "the user '\(account)'"
                    case .activeSession: "the user of the active graphical session"
                    }
                warning(
                    "{{env.\(variable)}} hands a secret of the daemon's environment to \(whom) (user: \(user)): "
                        + "the action runs as that user, who can read its value",
                    at: mark(ofOffset: offset, in: scalar), path: path,
                    hint: "netrules renders it as written; if \(variable) must stay root's, "
                        + "use it in an action without 'user:'")
            }
        case .sequence(let list):
            for (index, item) in list.items.enumerated() {
                warnSecretsHanded(to: user, in: item, path: path.index(index))
            }
        case .mapping(let mapping):
            for (key, value) in mapping.entries { warnSecretsHanded(to: user, in: value, path: path.key(key.text)) }
        }
    }

    /// A JSON-shaped value (a webhook's `json:`, a plugin's options). Plain scalars get JSON's
    /// types (`3`, `true`, `null`); quoted ones stay strings. Strings are checked as templates.
    public mutating func configValue(_ node: YAMLNode, _ path: KeyPath) -> ConfigValue? {
        switch node {
        case .scalar(let s):
            if s.style == .plain {
                if s.isNull { return .null }
                if s.text == "true" { return .bool(true) }
                if s.text == "false" { return .bool(false) }
                if ValidationContext.isJSONNumber(s.text), let n = Double(s.text) { return .number(n) }
            }
            return template(s.text, at: s, path) != nil ? .string(s.text) : nil
        case .sequence(let list):
            var items: [ConfigValue] = []
            var ok = true
            for (i, item) in list.items.enumerated() {
                if let v = configValue(item, path.index(i)) { items.append(v) } else { ok = false }
            }
            return ok ? .list(items) : nil
        case .mapping(let m):
            var members: [ConfigMember] = []
            var ok = true
            for (key, value) in m.entries {
                if let v = configValue(value, path.key(key.text)) {
                    members.append(ConfigMember(key.text, v))
                } else {
                    ok = false
                }
            }
            return ok ? .object(members) : nil
        }
    }

    static func isJSONNumber(_ text: String) -> Bool {
        var s = Substring(text)
        if s.hasPrefix("-") { s = s.dropFirst() }
        let intPart = s.prefix { $0.isASCII && $0.isNumber }
        guard !intPart.isEmpty, !(intPart.count > 1 && intPart.hasPrefix("0")) else { return false }
        s = s.dropFirst(intPart.count)
        if s.hasPrefix(".") {
            s = s.dropFirst()
            let frac = s.prefix { $0.isASCII && $0.isNumber }
            guard !frac.isEmpty else { return false }
            s = s.dropFirst(frac.count)
        }
        if s.hasPrefix("e") || s.hasPrefix("E") {
            s = s.dropFirst()
            if s.hasPrefix("+") || s.hasPrefix("-") { s = s.dropFirst() }
            let exp = s.prefix { $0.isASCII && $0.isNumber }
            guard !exp.isEmpty else { return false }
            s = s.dropFirst(exp.count)
        }
        return s.isEmpty
    }

    /// A literal file path: absolute or under `~`, never templated.
    /// - Parameter allowsUserHome: whether `~USER` and `~USER/...` (that account's home, which
    ///   must exist: `userProblem`) are taken, as `run:`'s `cwd:` takes them.
    mutating func literalPath(_ node: YAMLNode, _ path: KeyPath, what: String, allowsUserHome: Bool = false) -> String?
    {
        guard let t = text(node, path, what: what) else { return nil }
        if t.contains("{{") {
            error(
                "\(what) cannot hold a template", at: node.mark, path: path,
                hint: "paths are literal so that a network-supplied value never chooses where a file goes")
            return nil
        }
        let userHome = allowsUserHome && t.hasPrefix("~") && t != "~" && !t.hasPrefix("~/")
        guard t.hasPrefix("/") || t == "~" || t.hasPrefix("~/") || userHome else {
            error(
                "'\(t)' is not an absolute path", at: node.mark, path: path,
                hint: allowsUserHome ? "start it with /, ~/ or ~USER/" : "start it with / or ~/")
            return nil
        }
        if t.contains("\u{0}") {
            error("a path cannot contain a NUL byte", at: node.mark, path: path)
            return nil
        }
        if userHome, let scalar = node.scalar {
            let name = String(t.dropFirst().prefix { $0 != "/" })
            if let problem = userProblem?(name) {
                error(
                    problem, at: mark(ofOffset: 1, in: scalar), path: path,
                    hint: "~\(name) is the home of the account '\(name)'; name an account of this system")
                return nil
            }
        }
        return t
    }
}
