public import NetRulesCore

/// Typed readers over the untyped YAML tree. Each reports a positioned diagnostic and returns nil
/// when the value is not what the schema needs.
extension ValidationContext {
    /// A mapping, or an error.
    public mutating func mapping(_ node: YAMLNode, _ path: KeyPath, what: String = "a mapping") -> YAMLMapping? {
        if let m = node.mapping { return m }
        expected(what, found: node, path: path)
        return nil
    }

    /// A list, or an error.
    public mutating func sequence(_ node: YAMLNode, _ path: KeyPath, what: String = "a list") -> YAMLSequence? {
        if let s = node.sequence { return s }
        expected(what, found: node, path: path)
        return nil
    }

    /// A non-null scalar's text, or an error. Quoted and plain scalars alike: no implicit typing.
    public mutating func text(_ node: YAMLNode, _ path: KeyPath, what: String = "a string") -> String? {
        if let s = node.scalar, !s.isNull { return s.text }
        expected(what, found: node, path: path)
        return nil
    }

    /// One scalar or a list of scalars, as `ssid: A` / `ssid: [A, B]` allow, each with its own
    /// mark and key path (the list's path plus the index) for diagnostics.
    public mutating func oneOrMany(_ node: YAMLNode, _ path: KeyPath, what: String) -> [(
        text: String, mark: SourceMark, path: KeyPath
    )]? {
        if let s = node.scalar, !s.isNull { return [(s.text, s.mark, path)] }
        guard let list = node.sequence else {
            expected("\(what) or a list of them", found: node, path: path)
            return nil
        }
        if list.items.isEmpty {
            error("the list is empty", at: list.mark, path: path, hint: "give at least one \(what.droppingArticle)")
            return nil
        }
        var out: [(String, SourceMark, KeyPath)] = []
        var ok = true
        for (i, item) in list.items.enumerated() {
            if let t = text(item, path.index(i), what: what) {
                out.append((t, item.mark, path.index(i)))
            } else {
                ok = false
            }
        }
        return ok ? out : nil
    }

    /// One value or a list of them, each turned into a `T` by `parse`; every value that does not
    /// parse is reported at its own position, with the message and hint `problem` gives for it.
    public mutating func oneOrMany<T>(
        _ node: YAMLNode, _ path: KeyPath, what: String, parse: (String) -> T?,
        problem: (String) -> (message: String, hint: String?)
    ) -> [T]? {
        guard let items = oneOrMany(node, path, what: what) else { return nil }
        var values: [T] = []
        var ok = true
        for item in items {
            if let value = parse(item.text) {
                values.append(value)
            } else {
                let (message, hint) = problem(item.text)
                error(message, at: item.mark, path: item.path, hint: hint)
                ok = false
            }
        }
        return ok ? values : nil
    }

    /// One word or a list of words out of a fixed set, with a suggestion for a misspelling.
    public mutating func words(_ node: YAMLNode, _ path: KeyPath, oneOf words: [String]) -> [String]? {
        oneOrMany(
            node, path, what: "one of \(Self.listing(words))", parse: { words.contains($0) ? $0 : nil },
            problem: { Self.wordProblem($0, words) })
    }

    static func listing(_ words: [String]) -> String {
        words.map { "'\($0)'" }.joined(separator: ", ")
    }

    static func wordProblem(_ text: String, _ words: [String]) -> (message: String, hint: String?) {
        (
            "'\(text)' is not one of \(listing(words))",
            EditDistance.closest(to: text, among: words).map { "did you mean '\($0)'?" }
        )
    }

    /// `true` or `false`. YAML 1.1's `yes`/`no`/`on`/`off` are refused with a hint rather than guessed.
    public mutating func bool(_ node: YAMLNode, _ path: KeyPath) -> Bool? {
        guard let s = node.scalar, !s.isNull else {
            expected("true or false", found: node, path: path)
            return nil
        }
        switch s.text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        case "yes", "Yes", "YES", "on", "On", "ON", "y", "Y":
            error("'\(s.text)' is not a Boolean here", at: s.mark, path: path, hint: "write true")
        case "no", "No", "NO", "off", "Off", "OFF", "n", "N":
            error("'\(s.text)' is not a Boolean here", at: s.mark, path: path, hint: "write false")
        default:
            error("expected true or false, found '\(s.text)'", at: s.mark, path: path)
        }
        return nil
    }

    /// A duration such as `500ms`, `10s`, `1h30m`.
    public mutating func duration(_ node: YAMLNode, _ path: KeyPath) -> Duration? {
        guard let t = text(node, path, what: "a duration") else { return nil }
        switch DurationSyntax.parseChecked(t) {
        case .success(let d): return d
        case .failure(.tooLong):
            error(
                "'\(t)' is longer than netrules accepts (100 years)", at: node.mark, path: path,
                hint: "durations go up to 100 years (36525d)")
            return nil
        case .failure(.notADuration): break
        }
        let hint = Double(t) != nil ? "add a unit: \(t)s, \(t)m or \(t)h" : "write it like 500ms, 10s, 5m, 8h or 1h30m"
        error("'\(t)' is not a duration", at: node.mark, path: path, hint: hint)
        return nil
    }

    /// A number such as `-70` or `2437`.
    public mutating func number(_ node: YAMLNode, _ path: KeyPath) -> Double? {
        guard let t = text(node, path, what: "a number") else { return nil }
        if let n = Double(t), n.isFinite { return n }
        error("'\(t)' is not a number", at: node.mark, path: path)
        return nil
    }

    /// A whole number within `range`.
    public mutating func integer(_ node: YAMLNode, _ path: KeyPath, in range: ClosedRange<Int>) -> Int? {
        guard let t = text(node, path, what: "a whole number") else { return nil }
        guard let n = Int(t) else {
            error("'\(t)' is not a whole number", at: node.mark, path: path)
            return nil
        }
        guard range.contains(n) else {
            error("\(n) is out of range (\(range.lowerBound)…\(range.upperBound))", at: node.mark, path: path)
            return nil
        }
        return n
    }

    /// One word out of a fixed set, with a suggestion for a misspelling.
    public mutating func word(_ node: YAMLNode, _ path: KeyPath, oneOf words: [String]) -> String? {
        guard let t = text(node, path, what: "one of \(Self.listing(words))") else { return nil }
        if words.contains(t) { return t }
        let (message, hint) = Self.wordProblem(t, words)
        error(message, at: node.mark, path: path, hint: hint)
        return nil
    }

    /// What reads an `{{env.NAME}}`: what fails where it is unset, as its warning says.
    public enum VariableUse: Sendable {
        /// An action's template: the action fails and sends or runs nothing.
        case action
        /// `mqtt: password:`: the MQTT client cannot log in, and is not started.
        case mqttPassword
    }

    /// A template, with errors pointing into the scalar when it sits on one line; `use` says what
    /// an unset `{{env.NAME}}` in it breaks.
    public mutating func template(
        _ node: YAMLNode, _ path: KeyPath, what: String = "a string", use: VariableUse = .action
    ) -> Template? {
        guard let s = node.scalar, !s.isNull else {
            expected(what, found: node, path: path)
            return nil
        }
        return template(s.text, at: s, path, use: use)
    }

    /// Parses template text found in `scalar`.
    public mutating func template(
        _ text: String, at scalar: YAMLScalar, _ path: KeyPath, use: VariableUse = .action
    ) -> Template? {
        let template: Template
        do {
            template = try Template(text)
        } catch {
            self.error(error.message, at: mark(ofOffset: error.offset, in: scalar), path: path, hint: error.hint)
            return nil
        }
        var ok = true
        for (name, offset) in zip(template.names, template.placeholderOffsets) {
            guard case .fact(let key) = name, key.namespace == "mqtt" else { continue }
            if !subscribed(key, at: mark(ofOffset: offset, in: scalar), path) { ok = false }
        }
        guard ok else { return nil }
        if let environment {
            for (name, offset) in zip(template.names, template.placeholderOffsets) {
                guard case .environment(let variable) = name, (environment[variable] ?? "").isEmpty else { continue }
                let (message, hint) = Self.unsetVariable(
                    variable, empty: environment[variable] != nil, use: use, daemon: environmentIsTheDaemons)
                warning(message, at: mark(ofOffset: offset, in: scalar), path: path, hint: hint)
            }
        }
        return template
    }

    /// Whether `key` (`mqtt.NAME`) is a fact `subscribe:` declares; an error at `mark`, with the
    /// closest declared name, when it is not. True when nothing is known of `subscribe:`.
    public mutating func subscribed(_ key: FactKey, at mark: SourceMark, _ path: KeyPath) -> Bool {
        guard let names = subscribedNames else { return true }
        let name = String(key.rawValue.dropFirst("mqtt.".count))
        if names.contains(name) { return true }
        let hint =
            EditDistance.closest(to: name, among: names).map { "did you mean 'mqtt.\($0)'?" }
            ?? (names.isEmpty
                ? "declare it under 'mqtt:' as 'subscribe: { \(name): TOPIC }'"
                : "subscribed: \(names.map { "mqtt.\($0)" }.joined(separator: ", "))")
        error("'\(key)' is not a fact 'mqtt: subscribe:' declares", at: mark, path: path, hint: hint)
        return false
    }

    /// The warning for `{{env.NAME}}` when `NAME` is unset or empty where the rules are checked:
    /// it names where the daemon's own environment comes from, since that is what counts.
    ///
    /// `check` and `simulate` see their own environment, not the daemon's, so theirs says where the
    /// daemon's comes from; the daemon's own says what breaks and how to fix it, with no advice for
    /// `check`. The environment file is read when the daemon starts: a restart, not a reload.
    static func unsetVariable(
        _ name: String, empty: Bool, use: VariableUse = .action, daemon: Bool = false
    ) -> (message: String, hint: String) {
        let state = empty ? "empty" : "not set"
        let file = "/etc/netrules/environment (mode 0600; for netrules-user.service, ~/.config/netrules/environment)"
        let breaks =
            switch use {
            case .action: "an action that reads it fails and sends or runs nothing"
            case .mqttPassword: "the MQTT client cannot log in to the broker and is not started"
            }
        if daemon {
            let what =
                switch use {
                case .action: "\(name) is \(state) in the daemon's environment: \(breaks)"
                case .mqttPassword:
                    "\(name), the password of mqtt:, is \(state) in the daemon's environment: \(breaks)"
                }
            return (what, "add \(name)=… to \(file) and restart netrules: the daemon reads it only when it starts")
        }
        return (
            "\(name) is \(state) in this environment; the daemon reads its environment "
                + "from the systemd unit's EnvironmentFile=-/etc/netrules/environment (netrules.service), and "
                + "where \(name) is unset or empty \(breaks)",
            "add \(name)=… to \(file); check sees only its own environment"
        )
    }

    /// A `run:` command: a template read as `/bin/sh` will read it. Refused placeholders are
    /// errors and risky ones warnings, each at the placeholder's own line and column.
    public mutating func shellCommand(_ node: YAMLNode, _ path: KeyPath) -> ShellCommandTemplate? {
        guard let template = template(node, path, what: "a command"), let scalar = node.scalar else { return nil }
        let issues: [ShellTemplateIssue]
        let command: ShellCommandTemplate?
        let reading =
            shellCommandReadings?.reading(of: template, ruleName: ruleName)
            ?? ShellCommandReadings.read(template, ruleName: ruleName)
        switch reading {
        case .success(let read): (command, issues) = (read, read.warnings)
        case .failure(let refusal): (command, issues) = (nil, refusal.issues)
        }
        for issue in issues {
            let at = mark(ofOffset: issue.offset, in: scalar)
            switch issue.severity {
            case .error: self.error(issue.message, at: at, path: path, hint: issue.hint)
            case .warning: warning(issue.message, at: at, path: path, hint: issue.hint)
            }
        }
        return command
    }
    /// Reports every key of `mapping` not in `known`, with a "did you mean".
    public mutating func rejectUnknownKeys(_ mapping: YAMLMapping, _ path: KeyPath, known: [String], what: String) {
        for (key, _) in mapping.entries where !known.contains(key.text) {
            let hint =
                EditDistance.closest(to: key.text, among: known).map { "did you mean '\($0)'?" }
                ?? "known keys: \(known.joined(separator: ", "))"
            error("unknown key '\(key.text)' in \(what)", at: key.mark, path: path.key(key.text), hint: hint)
        }
    }
}

extension String {
    var droppingArticle: String {
        if hasPrefix("an ") { return String(dropFirst(3)) }
        if hasPrefix("a ") { return String(dropFirst(2)) }
        return self
    }
}
