public import NetRulesCore

/// One rule file's name and bytes. Reading files is the caller's job (the OS layer).
public struct RuleSource: Sendable {
    /// The file's name as the user gave it; diagnostics print it.
    public var file: String
    /// The file's contents: YAML, in UTF-8.
    public var bytes: [UInt8]

    /// Creates a source from a file's name and contents.
    public init(file: String, bytes: [UInt8]) {
        self.file = file
        self.bytes = bytes
    }
}

/// What loading produced: the valid rules, and every diagnostic, sorted by position.
public struct LoadResult: Sendable {
    /// The rule set with every rule that validated (a failed rule is reported and left out).
    public var ruleSet: RuleSet
    /// The first `maximumDiagnosticsPerFile` diagnostics of each file, by position.
    public var diagnostics: [Diagnostic]
    /// The sources, for rendering snippets.
    public var sources: [String: SourceText]
    /// Per file, how many diagnostics were left out of `diagnostics`.
    public var omitted: [String: Int] = [:]
    /// Errors among the omitted diagnostics.
    public var omittedErrors = 0
    /// Per file, how many of the omitted diagnostics are errors.
    public var omittedErrorsByFile: [String: Int] = [:]

    /// A broken file can hold tens of thousands of problems (one per alias on a line); nobody
    /// reads past the first few dozen, and printing them all once took gigabytes.
    public static let maximumDiagnosticsPerFile = 50

    /// Keeps the first `maximumDiagnosticsPerFile` of each file's diagnostics (sorted by position)
    /// and counts the rest.
    public init(ruleSet: RuleSet, diagnostics: [Diagnostic], sources: [String: SourceText]) {
        self.ruleSet = ruleSet
        self.sources = sources
        var kept: [Diagnostic] = []
        var perFile: [String: Int] = [:]
        for diagnostic in diagnostics {
            let count = perFile[diagnostic.file, default: 0]
            perFile[diagnostic.file] = count + 1
            if count < Self.maximumDiagnosticsPerFile {
                kept.append(diagnostic)
            } else {
                omitted[diagnostic.file, default: 0] += 1
                if diagnostic.severity == .error {
                    omittedErrors += 1
                    omittedErrorsByFile[diagnostic.file, default: 0] += 1
                }
            }
        }
        self.diagnostics = kept
    }

    /// Whether any diagnostic is an error: `check` exits 65 and the daemon keeps its old rules.
    public var hasErrors: Bool { omittedErrors > 0 || diagnostics.contains { $0.severity == .error } }

    /// How many errors there are in all, the omitted ones included.
    public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count + omittedErrors }

    /// How many errors each file with some has, the omitted ones included.
    public var errorsByFile: [String: Int] {
        var counts = omittedErrorsByFile
        for diagnostic in diagnostics where diagnostic.severity == .error { counts[diagnostic.file, default: 0] += 1 }
        return counts
    }

    /// Every diagnostic rendered with its source line and caret, each ending in a newline, and a
    /// line per file saying how many more were left out.
    public func renderedDiagnostics() -> String { renderedDiagnostics(severityLabel: \.rawValue) }

    /// ``renderedDiagnostics()`` with the severity words as `severityLabel` gives them (coloured
    /// on a terminal).
    public func renderedDiagnostics(severityLabel: (Diagnostic.Severity) -> String) -> String {
        diagnostics.map { $0.rendered(source: sources[$0.file], severityLabel: severityLabel) + "\n" }.joined()
            + omitted.keys.sorted().map { file in
                "\(file): and \(omitted[file]!) more problems not shown (the first "
                    + "\(Self.maximumDiagnosticsPerFile) are above)\n"
            }.joined()
    }
}

/// Turns rule files into a validated `RuleSet`, reporting every problem with its position.
///
/// Stages (STYLE §10): YAML → shape and types of each file → each kind validates its own
/// options → cross-file checks (duplicate names and hosts).
public struct RuleLoader: Sendable {
    /// The condition and action kinds rule files may use.
    public var registry: Registry
    /// Finds `netrules-action-NAME` in the given plugin directories, then `PATH`.
    public var findActionPlugin: @Sendable (_ name: String, _ directories: [String]) -> String?
    /// Finds `netrules-observer-NAME` likewise.
    public var findObserverPlugin: @Sendable (_ name: String, _ directories: [String]) -> String?
    /// The environment the daemon's `{{env.NAME}}` will read, as far as the caller knows it: each
    /// placeholder whose variable it leaves unset or empty is a warning. Nil checks nothing.
    public var environment: [String: String]?
    /// Whether `environment` is the daemon's own, not that of `check` or `simulate` beside it
    /// (`ValidationContext.environmentIsTheDaemons`).
    public var environmentIsTheDaemons = false
    /// Says why a file the rules name for the daemon to read (a webhook's `ca_file`) cannot be
    /// read, or nil; each problem is a warning. Nil (the default) checks nothing.
    public var fileProblem: (@Sendable (String) -> String?)?
    /// Says why a `run:` command's program will not be found (see
    /// `ValidationContext.programProblem`); each problem is a warning. Nil checks nothing.
    public var programProblem: (@Sendable (String) -> String?)?
    /// Says why an action's `user:` cannot be used (see `ValidationContext.userProblem`); each
    /// problem is an error. Nil checks nothing.
    public var userProblem: (@Sendable (String) -> String?)?
    /// Says why a `write:`'s `owner: user:group` cannot be used (see
    /// `ValidationContext.groupProblem`); each problem is an error. Nil checks nothing.
    public var groupProblem: (@Sendable (String) -> String?)?
    /// Says why the daemon will refuse to run a `run:` command's program as root (see
    /// `ValidationContext.programTrustProblem`); each problem is a warning. Nil checks nothing.
    public var programTrustProblem: ValidationContext.ProgramTrustCheck?

    static let topLevelKeys = [
        "version", "rules", "hosts", "connectivity", "observers", "plugins", "wifi", "places", "mqtt",
    ]
    static let ruleKeys = ["name", "description", "when", "on", "for", "cooldown", "once_per", "do"]

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - registry: the kinds rule files may use; the built-ins by default.
    ///   - findActionPlugin: finds `netrules-action-NAME`, given the name and the plugin directories.
    ///     The default finds nothing, so every action that is not built in is refused.
    ///   - findObserverPlugin: finds `netrules-observer-NAME` likewise; the default finds nothing.
    ///   - environment: the environment to check `{{env.NAME}}` against; nil (the default) checks nothing.
    public init(
        registry: Registry = .standard,
        findActionPlugin: @escaping @Sendable (String, [String]) -> String? = { _, _ in nil },
        findObserverPlugin: @escaping @Sendable (String, [String]) -> String? = { _, _ in nil },
        environment: [String: String]? = nil
    ) {
        self.registry = registry
        self.findActionPlugin = findActionPlugin
        self.findObserverPlugin = findObserverPlugin
        self.environment = environment
    }

    /// Loads one or more files as one rule set.
    public func load(_ sources: [RuleSource]) -> LoadResult {
        var diagnostics: [Diagnostic] = []
        var texts: [String: SourceText] = [:]
        var roots: [(file: String, root: YAMLMapping)] = []

        // Stage 1: YAML and the top-level shape of every file.
        for source in sources {
            texts[source.file] = SourceText(file: source.file, bytes: source.bytes)
            let (root, yamlDiagnostics) = YAMLDocument.parse(source.bytes, file: source.file)
            diagnostics += yamlDiagnostics
            var context = ValidationContext(file: source.file)
            guard let root else {
                if yamlDiagnostics.isEmpty {
                    context.warning(
                        "the file is empty", at: SourceMark(line: 1, column: 1), path: .root,
                        hint: "a rule file starts with 'version: 1' and a 'rules:' list")
                }
                diagnostics += context.diagnostics
                continue
            }
            guard let mapping = root.mapping else {
                context.expected("a mapping with 'version:' and 'rules:'", found: root, path: .root)
                diagnostics += context.diagnostics
                continue
            }
            context.rejectUnknownKeys(mapping, .root, known: Self.topLevelKeys, what: "a rule file")
            if let v = mapping.entry("version") {
                if v.value.scalar?.text != "1" {
                    context.error(
                        "unsupported version '\(v.value.scalar?.text ?? v.value.kindDescription)'", at: v.value.mark,
                        path: .root.key("version"), hint: "this netrules reads version 1")
                }
            } else {
                context.error(
                    "the file has no 'version:'", at: mapping.mark, path: .root, hint: "add 'version: 1' at the top")
            }
            diagnostics += context.diagnostics
            roots.append((source.file, mapping))
        }

        // Stage 2: settings shared by all files.
        var pluginDirectories: [String] = []
        var namedHosts: [String: HostDefinition] = [:]
        var hostOrigins: [String: String] = [:]
        var connectivity: ConnectivitySettings?
        var connectivityOrigin: String?
        var wifi: WiFiSettings?
        var wifiOrigin: String?
        var mqtt: MQTTSettings?
        var mqttOrigin: String?
        for (file, root) in roots {
            var context = ValidationContext(file: file)
            if let p = root["plugins"] { pluginDirectories += context.pluginDirectories(p, .root.key("plugins")) }
            if let h = root["hosts"] {
                for (host, mark) in context.hosts(h, .root.key("hosts")) {
                    if let first = hostOrigins[host.name] {
                        context.error(
                            "host '\(host.name)' is defined twice (first at \(first))", at: mark,
                            path: .root.key("hosts").key(host.name))
                        continue
                    }
                    namedHosts[host.name] = host
                    hostOrigins[host.name] = "\(file):\(mark)"
                }
            }
            if let w = root.entry("wifi") {
                if let first = wifiOrigin {
                    context.error(
                        "'wifi' is set in more than one file (first at \(first))", at: w.key.mark,
                        path: .root.key("wifi"))
                } else {
                    wifi = context.wifi(w.value, .root.key("wifi"))
                    wifiOrigin = "\(file):\(w.key.mark)"
                }
            }
            if let c = root.entry("connectivity") {
                if let first = connectivityOrigin {
                    context.error(
                        "'connectivity' is set in more than one file (first at \(first))", at: c.key.mark,
                        path: .root.key("connectivity"))
                } else {
                    connectivity = context.connectivity(c.value, .root.key("connectivity"))
                    connectivityOrigin = "\(file):\(c.key.mark)"
                }
            }
            if let q = root.entry("mqtt") {
                if let first = mqttOrigin {
                    context.error(
                        "'mqtt' is set in more than one file (first at \(first))", at: q.key.mark,
                        path: .root.key("mqtt"))
                } else {
                    context.environment = environment
                    context.environmentIsTheDaemons = environmentIsTheDaemons
                    context.fileProblem = fileProblem
                    mqtt = context.mqtt(q.value, .root.key("mqtt"))
                    mqttOrigin = "\(file):\(q.key.mark)"
                }
            }
            diagnostics += context.diagnostics
        }

        // The facts `mqtt.NAME` rules and places may read: those `subscribe:` declares, even when `mqtt:`
        // failed validation (its own errors say why; its rules are not also refused).
        var subscribedNames = mqtt?.subscriptions.map(\.name) ?? []
        for (_, root) in roots {
            for (key, _) in root["mqtt"]?.mapping?["subscribe"]?.mapping?.entries ?? []
            where !subscribedNames.contains(key.text) {
                subscribedNames.append(key.text)
            }
        }

        // Stage 2b: places, whose conditions may name the hosts of any file.
        var places: [PlaceDefinition] = []
        var placeOrigins: [String: String] = [:]
        var inlineHosts: [String: HostDefinition] = [:]
        for (file, root) in roots {
            guard let node = root["places"] else { continue }
            var context = ValidationContext(file: file)
            context.source = texts[file]
            context.subscribedNames = subscribedNames
            let read = context.places(node, .root.key("places"), registry: registry, namedHosts: namedHosts)
            for (name, host) in read.inlineHosts where namedHosts[name] == nil { inlineHosts[name] = host }
            for (place, mark) in read.places {
                if let first = placeOrigins[place.name] {
                    context.error(
                        "place '\(place.name)' is defined twice (first at \(first))", at: mark,
                        path: .root.key("places").key(place.name))
                    continue
                }
                placeOrigins[place.name] = place.origin
                places.append(place)
            }
            diagnostics += context.diagnostics
        }
        // A place that failed validation is still a name rules may use: its rules are not also
        // refused as naming an undefined place.
        var placeNames = places.map(\.name)
        for (_, root) in roots {
            for (key, _) in root["places"]?.mapping?.entries ?? [] where !placeNames.contains(key.text) {
                placeNames.append(key.text)
            }
        }

        // Stage 3: rules and observers, each validated alone.
        var rules: [Rule] = []
        var ruleOrigins: [String: String] = [:]
        var observers: [ObserverDefinition] = []
        let dirs = pluginDirectories
        let findAction = findActionPlugin
        let shellCommandReadings = ShellCommandReadings()
        for (file, root) in roots {
            var context = ValidationContext(file: file)
            context.source = texts[file]
            context.environment = environment
            context.environmentIsTheDaemons = environmentIsTheDaemons
            if let o = root["observers"] {
                observers += context.observers(o, .root.key("observers")) { findObserverPlugin($0, dirs) }
            }
            if let list = root["rules"] {
                if let seq = context.sequence(list, .root.key("rules")) {
                    for (i, item) in seq.items.enumerated() {
                        // Each rule gets a context of its own: handing it the file's (with every
                        // diagnostic so far) made each append copy them all, quadratic in broken rules.
                        var own = ValidationContext(file: file)
                        own.source = context.source
                        own.environment = environment
                        own.environmentIsTheDaemons = environmentIsTheDaemons
                        own.fileProblem = fileProblem
                        own.programProblem = programProblem
                        own.userProblem = userProblem
                        own.groupProblem = groupProblem
                        own.programTrustProblem = programTrustProblem
                        own.hasMQTTSection = mqttOrigin != nil
                        own.subscribedNames = subscribedNames
                        own.shellCommandReadings = shellCommandReadings
                        var parser = RuleParser(
                            context: own, registry: registry, namedHosts: namedHosts,
                            findPlugin: { findAction($0, dirs) })
                        parser.placeNames = placeNames
                        let rule = parser.rule(item, at: .root.key("rules").index(i))
                        context.append(parser.context.diagnostics)
                        for (name, host) in parser.inlineHosts where namedHosts[name] == nil {
                            inlineHosts[name] = host
                        }
                        guard let (rule, nameMark) = rule else { continue }
                        if let first = ruleOrigins[rule.name] {
                            context.error(
                                "a rule named '\(rule.name)' already exists (at \(first))", at: nameMark,
                                path: .root.key("rules").index(i).key("name"), hint: "rule names must be unique")
                            continue
                        }
                        ruleOrigins[rule.name] = rule.origin
                        rules.append(rule)
                    }
                }
            }
            diagnostics += context.diagnostics
        }

        let hosts = namedHosts.values.sorted { $0.name < $1.name } + inlineHosts.values.sorted { $0.name < $1.name }
        let ruleSet = RuleSet(
            rules: rules, hosts: hosts, connectivity: connectivity ?? ConnectivitySettings(), observers: observers,
            pluginDirectories: pluginDirectories, wifi: wifi ?? WiFiSettings(), places: places, mqtt: mqtt)
        return LoadResult(ruleSet: ruleSet, diagnostics: diagnostics.sortedByPosition(), sources: texts)
    }
}
