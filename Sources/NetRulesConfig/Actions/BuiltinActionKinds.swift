import NetRulesCore

/// `run: "COMMAND"` or `run: { command, timeout, cwd, env, user }`.
struct RunActionKind: ActionKind {
    let name = "run"
    let summary = "Runs a command with /bin/sh -c; each substituted value is quoted for where it stands."

    var schema: JSONValue {
        Schema.anyOf([
            Schema.string("The command line."),
            Schema.object(
                [
                    "command": Schema.string("The command line for /bin/sh -c."),
                    "timeout": Schema.duration("Kill the command's process group after this (default: 30s)."),
                    "cwd": Schema.string(
                        "The working directory: absolute, ~/... (the daemon's home) or ~USER/... (that user's)."),
                    "env": .object([
                        ("type", .string("object")), ("additionalProperties", .object([("type", .string("string"))])),
                        ("description", .string("Extra environment variables; values may hold templates.")),
                    ]),
                    "user": Schema.actionUser,
                ], required: ["command"]),
        ])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ActionParser) -> Action? {
        if node.scalar != nil {
            guard let command = parser.context.shellCommand(node, path) else { return nil }
            parser.context.checkProgram(of: command, node: node, path: path)
            parser.context.checkTrust(of: command, node: node, path: path)
            return .run(RunAction(command: command))
        }
        guard let m = parser.context.mapping(node, path, what: "a command or '{ command: ..., timeout: ... }'") else {
            return nil
        }
        parser.context.rejectUnknownKeys(
            m, path, known: ["command", "timeout", "cwd", "env", "user"], what: "a run action")
        guard let commandNode = m["command"] else {
            parser.context.error("a run action needs 'command'", at: m.mark, path: path)
            return nil
        }
        var ok = true
        let command = parser.context.shellCommand(commandNode, path.key("command"))
        var timeout = RunAction.defaultTimeout
        var workingDirectory: String?
        var environment: [(name: String, value: Template)] = []
        if let t = m["timeout"] {
            if let d = parser.context.duration(t, path.key("timeout")) { timeout = d } else { ok = false }
        }
        if let c = m["cwd"] {
            workingDirectory = parser.context.literalPath(
                c, path.key("cwd"), what: "the working directory", allowsUserHome: true)
            if workingDirectory == nil { ok = false }
        }
        if let e = m["env"] {
            if let env = parser.context.environment(e, path.key("env")) { environment = env } else { ok = false }
        }
        var user: ActionUser?
        if let u = m["user"] {
            user = parser.context.actionUser(u, path.key("user"))
            if user == nil { ok = false }
        }
        guard ok, let command else { return nil }
        // A PATH of the action's own is searched by the command, not by the daemon's check.
        let ownPath = environment.last { $0.name == "PATH" }?.value
        if ownPath == nil {
            parser.context.checkProgram(of: command, node: commandNode, path: path.key("command"))
        }
        switch user {
        case nil, .named("root"):
            // As root: the program must be root's alone. A path of `env:` with a placeholder is
            // known only when the action runs (the runner checks it then).
            if ownPath?.isConstant ?? true {
                parser.context.checkTrust(
                    of: command, node: commandNode, path: path.key("command"), searchPath: ownPath?.source,
                    workingDirectory: workingDirectory.flatMap { $0.hasPrefix("~") ? nil : $0 })
            }
        case let user?:
            // As another user: the program is that user's business, the secrets root's.
            parser.context.warnSecretsHanded(to: user, in: commandNode, path: path.key("command"))
            if let e = m["env"] { parser.context.warnSecretsHanded(to: user, in: e, path: path.key("env")) }
        }
        return .run(
            RunAction(
                command: command, timeout: timeout, workingDirectory: workingDirectory, environment: environment,
                user: user))
    }
}

/// `webhook: { url, method, headers, json | body, timeout, retry, when }`.
struct WebhookActionKind: ActionKind {
    let name = "webhook"
    let summary = "Sends an HTTP request, at least once, through a durable outbox."

    static let methods = ["POST", "PUT", "PATCH", "GET", "DELETE"]

    var schema: JSONValue {
        Schema.object(
            [
                "url": Schema.string(
                    "http:// or https:// URL; scheme, host and port literal; substituted values are URL-encoded."),
                "method": Schema.enumeration(Self.methods, "The HTTP method (default: POST)."),
                "headers": .object([
                    ("type", .string("object")), ("additionalProperties", .object([("type", .string("string"))])),
                    ("description", .string("Header values may read secrets: {{env.NAME}}.")),
                ]),
                "json": .object([("description", .string("A JSON body; substituted values are JSON-escaped."))]),
                "body": Schema.string("A raw text body."),
                "pin": Schema.stringOrList(
                    "https only: the server's key must also match one of these sha256// pins (netrules pin HOST)."),
                "ca_file": Schema.string(
                    "https only: an absolute path to a PEM bundle of the CAs to trust instead of the system's."),
                "timeout": Schema.duration("Per-attempt timeout (default: 10s)."),
                "retry": Schema.object(
                    [
                        "attempts": Schema.integer("Total attempts (default: 5).", in: 1...1000),
                        "backoff": Schema.duration("First retry delay, doubled each time, with jitter (default: 1s)."),
                    ], required: []),
                "when": Schema.enumeration(
                    ["online", "always"], "'online' holds delivery until connectivity is online."),
            ], required: ["url"])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ActionParser) -> Action? {
        guard let m = parser.context.mapping(node, path, what: "'{ url: ..., json: {...} }'") else { return nil }
        parser.context.rejectUnknownKeys(
            m, path, known: ["url", "method", "headers", "json", "body", "timeout", "retry", "when", "pin", "ca_file"],
            what: "a webhook")
        guard let urlNode = m["url"] else {
            parser.context.error("a webhook needs 'url'", at: m.mark, path: path)
            return nil
        }
        var ok = true
        guard let url = parser.context.template(urlNode, path.key("url"), what: "a URL") else { return nil }
        if let problem = WebhookURLCheck.problem(in: url) {
            let mark = urlNode.scalar.map { parser.context.mark(ofOffset: problem.offset, in: $0) } ?? urlNode.mark
            parser.context.error(problem.message, at: mark, path: path.key("url"), hint: problem.hint)
            ok = false
        }
        var action = WebhookAction(url: url)
        if let p = m["pin"] {
            let pins = parser.context.oneOrMany(
                p, path.key("pin"), what: "a pin", parse: { PlaceProof.isValidPin($0) ? $0 : nil },
                problem: {
                    (
                        "'\($0)' is not a pin: expected 'sha256//' and 44 base64 characters",
                        "'netrules pin HOST[:PORT]' prints the pin of the key a server presents"
                    )
                })
            if let pins { action.pins = pins } else { ok = false }
            if !url.source.lowercased().hasPrefix("https://") {
                parser.context.error(
                    "a pinned webhook must use an https:// URL", at: urlNode.mark, path: path.key("url"),
                    hint: "a pin is checked in the TLS handshake")
                ok = false
            }
        }
        if let c = m["ca_file"] {
            if let path = Self.caFile(c, for: urlNode, url: url, at: path, in: &parser.context) {
                action.caFile = path
            } else {
                ok = false
            }
        }
        if let method = m["method"] {
            if let t = parser.context.text(method, path.key("method")),
                let w = Self.methods.first(where: { $0 == t.uppercased() })
            {
                action.method = w
            } else {
                _ = parser.context.word(method, path.key("method"), oneOf: Self.methods)
                ok = false
            }
        }
        if let h = m["headers"] {
            if let headers = parser.context.headers(h, path.key("headers")) {
                action.headers = headers
            } else {
                ok = false
            }
        }
        if let json = m.entry("json"), let body = m.entry("body") {
            parser.context.error(
                "'json' and 'body' cannot be combined", at: body.key.mark, path: path.key("body"),
                hint: "a request has one body: keep 'json' for a JSON document or 'body' for text")
            ok = false
            _ = json
        } else if let json = m["json"] {
            if let v = parser.context.configValue(json, path.key("json")) { action.body = .json(v) } else { ok = false }
        } else if let body = m["body"] {
            if let t = parser.context.template(body, path.key("body")) { action.body = .text(t) } else { ok = false }
        }
        if let t = m["timeout"] {
            if let d = parser.context.duration(t, path.key("timeout")) { action.timeout = d } else { ok = false }
        }
        if let r = m["retry"] {
            if let rm = parser.context.mapping(r, path.key("retry"), what: "'{ attempts: N, backoff: DURATION }'") {
                parser.context.rejectUnknownKeys(rm, path.key("retry"), known: ["attempts", "backoff"], what: "retry")
                if let a = rm["attempts"] {
                    if let n = parser.context.integer(a, path.key("retry").key("attempts"), in: 1...1000) {
                        action.attempts = n
                    } else {
                        ok = false
                    }
                }
                if let b = rm["backoff"] {
                    if let d = parser.context.duration(b, path.key("retry").key("backoff")) {
                        action.backoff = d
                    } else {
                        ok = false
                    }
                }
            } else {
                ok = false
            }
        }
        if let w = m["when"] {
            if let word = parser.context.word(w, path.key("when"), oneOf: ["online", "always"]) {
                action.waitsForOnline = word == "online"
            } else {
                ok = false
            }
        }
        return ok ? .webhook(action) : nil
    }

    /// `ca_file:`: an absolute, literal path on an https webhook. A file the caller cannot read
    /// is a warning, not an error: `check` may run before the file is installed, or as another
    /// user than the daemon; a delivery without it fails with curl's reason.
    static func caFile(
        _ node: YAMLNode, for urlNode: YAMLNode, url: Template, at path: KeyPath, in context: inout ValidationContext
    ) -> String? {
        guard let file = context.text(node, path.key("ca_file"), what: "a path") else { return nil }
        guard file.hasPrefix("/") else {
            context.error(
                "'ca_file' must be an absolute path", at: node.mark, path: path.key("ca_file"),
                hint: "the daemon reads it at every delivery, from its own working directory and home")
            return nil
        }
        guard url.source.lowercased().hasPrefix("https://") else {
            context.error(
                "a webhook with 'ca_file' must use an https:// URL", at: urlNode.mark, path: path.key("url"),
                hint: "the CAs verify the server's certificate in the TLS handshake")
            return nil
        }
        if let problem = context.fileProblem?(file) {
            context.warning(
                "ca_file '\(file)' \(problem); every delivery of this webhook will fail until it can be read",
                at: node.mark, path: path.key("ca_file"),
                hint: "install the CA bundle (PEM) there, readable by the user the daemon runs as")
        }
        return file
    }
}

/// `write: { path, content, append, mode, owner, timeout }`.
struct WriteActionKind: ActionKind {
    let name = "write"
    let summary = "Writes a file atomically (or appends one record) with rendered content."

    var schema: JSONValue {
        Schema.object(
            [
                "path": Schema.string("Absolute or ~/ path; literal (no templates)."),
                "content": Schema.string("The text to write; may hold templates."),
                "append": Schema.boolean("Append one record instead of replacing the file (default: false)."),
                "mode": Schema.string(
                    "Octal permissions for a new file (default: \"0644\"); no setuid, setgid or world-write bits."),
                "owner": .object([
                    ("type", .string("string")), ("pattern", .string("^[^:]+(:[^:]+)?$")),
                    (
                        "description",
                        .string(
                            "Give the file to this account, 'user' or 'user:group' (root daemon only; the user's "
                                + "primary group without one); 'active' is the user of the active graphical session."
                        )
                    ),
                ]),
                "timeout": Schema.duration("Fail the action after this (default: 30s)."),
            ], required: ["path", "content"])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ActionParser) -> Action? {
        guard let m = parser.context.mapping(node, path, what: "'{ path: ..., content: ... }'") else { return nil }
        parser.context.rejectUnknownKeys(
            m, path, known: ["path", "content", "append", "mode", "owner", "timeout"], what: "a write action")
        var ok = true
        var file: String?
        var content: Template?
        if let p = m["path"] {
            file = parser.context.literalPath(p, path.key("path"), what: "the path")
            if file?.hasSuffix("/") == true {
                parser.context.error("the path names a directory", at: p.mark, path: path.key("path"))
                file = nil
            } else if let written = file, let problem = Self.forbiddenPath(written) {
                parser.context.error(problem.message, at: p.mark, path: path.key("path"), hint: problem.hint)
                file = nil
            }
            if file == nil { ok = false }
        } else {
            parser.context.error("a write action needs 'path'", at: m.mark, path: path)
            ok = false
        }
        if let c = m["content"] {
            content = parser.context.template(c, path.key("content"))
            if content == nil { ok = false }
        } else {
            parser.context.error("a write action needs 'content'", at: m.mark, path: path)
            ok = false
        }
        var append = false
        if let a = m["append"] {
            if let b = parser.context.bool(a, path.key("append")) { append = b } else { ok = false }
        }
        var mode: UInt32 = 0o644
        if let modeNode = m["mode"] {
            if let t = parser.context.text(modeNode, path.key("mode")), (3...4).contains(t.count),
                let v = UInt32(t, radix: 8), v <= 0o7777
            {
                mode = v
                let risky = [(0o4000, "setuid"), (0o2000, "setgid"), (0o002, "world-write")].filter { v & $0.0 != 0 }
                if !risky.isEmpty {
                    parser.context.error(
                        "the mode \(t) has the \(risky.map(\.1).joined(separator: " and ")) "
                            + (risky.count == 1 ? "bit" : "bits")
                            + ": a file netrules writes with network text must not be executable as another user "
                            + "or writable by everyone",
                        at: modeNode.mark, path: path.key("mode"), hint: "use a mode such as \"0644\" or \"0600\"")
                    ok = false
                }
            } else {
                parser.context.error(
                    "the mode must be octal permissions such as \"0644\"", at: modeNode.mark, path: path.key("mode"))
                ok = false
            }
        }
        var owner: FileOwner?
        if let o = m["owner"] {
            owner = parser.context.fileOwner(o, path.key("owner"))
            if owner == nil { ok = false }
        }
        var timeout = RunAction.defaultTimeout
        if let t = m["timeout"] {
            if let d = parser.context.duration(t, path.key("timeout")) { timeout = d } else { ok = false }
        }
        guard ok, let file, let content else { return nil }
        return .write(
            WriteAction(path: file, content: content, append: append, mode: mode, owner: owner, timeout: timeout))
    }

    /// Paths a rule may not write: any with a `..` component (a rule says plainly where it writes),
    /// and the kernel's and devices' trees, where a "file" is a device or a kernel setting.
    static func forbiddenPath(_ path: String) -> (message: String, hint: String)? {
        if path.split(separator: "/").contains("..") {
            return ("the path must not contain '..'", "write the path out in full")
        }
        for tree in ["/dev", "/proc", "/sys"] where path == tree || path.hasPrefix(tree + "/") {
            return (
                "netrules does not write under \(tree): files there are devices or kernel settings, not files",
                "write to a regular file, or use a 'run:' action for kernel settings"
            )
        }
        return nil
    }
}

extension ValidationContext {
    /// `NAME: VALUE` pairs whose values are templates (environment variables).
    mutating func environment(_ node: YAMLNode, _ path: KeyPath) -> [(name: String, value: Template)]? {
        guard let m = mapping(node, path, what: "a mapping of NAME: VALUE") else { return nil }
        var out: [(String, Template)] = []
        var ok = true
        for (key, value) in m.entries {
            let valid =
                !key.text.isEmpty && !key.text.contains("=")
                && key.text.unicodeScalars.allSatisfy {
                    ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                } && !("0"..."9").contains(key.text.unicodeScalars.first!)
            if !valid {
                error("'\(key.text)' is not a valid environment variable name", at: key.mark, path: path.key(key.text))
                ok = false
            }
            if let t = template(value, path.key(key.text)) { out.append((key.text, t)) } else { ok = false }
        }
        return ok ? out : nil
    }

    /// HTTP header `Name: VALUE` pairs (values are templates).
    mutating func headers(_ node: YAMLNode, _ path: KeyPath) -> [(name: String, value: Template)]? {
        guard let m = mapping(node, path, what: "a mapping of header names to values") else { return nil }
        var out: [(String, Template)] = []
        var ok = true
        for (key, value) in m.entries {
            let token =
                !key.text.isEmpty
                && key.text.unicodeScalars.allSatisfy {
                    $0.isASCII && $0.value > 0x20 && $0.value < 0x7F
                        && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains($0)
                }
            if !token {
                error("'\(key.text)' is not a valid HTTP header name", at: key.mark, path: path.key(key.text))
                ok = false
            }
            if let t = template(value, path.key(key.text)) { out.append((key.text, t)) } else { ok = false }
        }
        return ok ? out : nil
    }
}
