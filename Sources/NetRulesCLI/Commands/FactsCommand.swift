import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesLinux

/// `netrules facts [RULES…] [--json]`: every fact key, its type and meaning, who provides it here,
/// and its value now.
enum FactsCommand: Command {
    static let spec = CommandSpec(
        name: "facts",
        abstract: "List every fact netrules knows: its type, meaning, source on this machine and current value.",
        discussion: """
            Built-in facts, one per interface and per host, and the facts plugins report (from the rule \
            files given, else the default rule directory when it is readable), and every key the running \
            daemon's rules can read (hosts.NAME, places.NAME, mqtt.NAME, plugin facts), reported or not. Values come from \
            the running daemon, else from the system directly; in text a known absent value is none and a fact \
            nobody reported is unknown. Without rule files, a running daemon names each fact's source as it runs \
            it (its rules' wifi:, plugins and places, its kernel and bus); with rule files, or without a daemon, \
            the sources are those of the rules on this machine. With --json: \
            {"version":1,"sources_from":"daemon"|"rules","facts":[{"key":…,"type":…,"meaning":…,"source":…,\
            "state":"value"|"absent"|"unknown","value":…}]}.
            """,
        arguments: [
            ArgumentSpec(
                name: "rules", help: "Rule files whose hosts and plugin facts to include.", isOptional: true,
                isRepeating: true, completion: .files)
        ],
        options: [.json, .controlSocket, .daemonStateDirectory]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let (values, reads, daemonSources) = try await currentFacts(arguments, io)
        var rulePaths = arguments.positional("rules")
        // Without rule files the running daemon is the authority on its rules; rule files given are
        // what the person asks about, on this machine.
        let fromDaemon = rulePaths.isEmpty ? daemonSources : nil
        var daemonReads = reads
        if let fromDaemon { daemonReads.formUnion(fromDaemon.keys) }
        if rulePaths.isEmpty && fromDaemon == nil {
            let defaults = DaemonPaths.defaults(environment: io.environment).ruleDirectory
            // An unreadable or missing default rules directory means there are no default rules to
            // read the needed facts from.
            if (try? RuleFiles.expand([defaults])) != nil { rulePaths = [defaults] }
        }
        let ruleSet =
            rulePaths.isEmpty
            // The rules only pick which facts are listed as needed; a rule file that does not load
            // (check reports why) leaves the plain fact table.
            ? RuleSet() : ((try? RuleFiles.load(rulePaths, environment: io.environment))?.ruleSet ?? RuleSet())
        let sources = FactSources(
            ruleSet: ruleSet, kernelHasNL80211: WiFiSource.kernelHasNL80211, networkManagerOnBus: nil)

        // The fixed keys only: a family such as `places.NAME.proof` is listed by its members.
        var keys: [FactKey] = FactCatalog.fixedKeys
        keys += values.keys.filter { $0.namespace == "interfaces" }.sorted()
        keys += ruleSet.hosts.map { FactKey.host($0.name) }
        // A place's proof facts exist only when it has proofs (`PlaceDerivation`).
        keys += ruleSet.places.flatMap { place -> [FactKey] in
            [.placeStatus(place.name)]
                + (place.proofs.isEmpty ? [] : [.placeProof(place.name), .placeReason(place.name)])
        }
        // What the running daemon's rules can read, reported or not (its rules may not be these files).
        keys += daemonReads.union(ruleSet.factKeysRead).filter {
            $0.namespace == "hosts" || $0.namespace == "places" || $0.namespace == "interfaces"
                || $0.namespace == "mqtt"
        }.sorted()
        keys += ruleSet.observers.flatMap(\.provides).filter { !$0.isBuiltIn }.sorted()
        keys += ruleSet.mqtt?.subscriptions.map(\.factKey) ?? []
        let pluginKeys = ruleSet.factKeysRead.union(values.keys).union(daemonReads).filter {
            FactCatalog.entry(for: $0) == nil && !$0.isEngineInternal
        }
        keys += pluginKeys.sorted()
        var seen: Set<FactKey> = []
        keys = keys.filter { seen.insert($0).inserted }

        let rows: [(FactKey, FactCatalog.Entry?, String, FactState)] = keys.map {
            ($0, FactCatalog.entry(for: $0), fromDaemon?[$0] ?? sources.source(of: $0).label, values[$0] ?? .unknown)
        }
        if arguments.flag("json") {
            let facts: [JSONValue] = rows.map { key, entry, source, state in
                var members: [(String, JSONValue)] = [
                    ("key", .string(key.rawValue)), ("type", .string(entry?.type ?? "any JSON value")),
                    ("meaning", .string(entry?.meaning ?? "reported by an observer plugin")),
                    ("source", .string(source)),
                ]
                switch state {
                case .unknown: members += [("state", .string("unknown")), ("value", .null)]
                case .absent: members += [("state", .string("absent")), ("value", .null)]
                case .value(let value): members += [("state", .string("value")), ("value", JSONValue(value))]
                }
                return .object(members)
            }
            io.print(
                JSONValue.object([
                    ("version", .number(1)), ("sources_from", .string(fromDaemon == nil ? "rules" : "daemon")),
                    ("facts", .array(facts)),
                ]).compact)
        } else {
            let table = rows.map { key, entry, source, state -> [String] in
                let value: String
                switch state {
                case .unknown: value = "unknown"
                case .absent: value = "none"
                case .value(let v): value = TerminalText.escaped(v.plainText)
                }
                return [
                    TerminalText.escaped(key.rawValue), entry?.type ?? "plugin value", TerminalText.escaped(source),
                    value,
                ]
            }
            for line in Table.render([["KEY", "TYPE", "SOURCE", "VALUE"]] + table) { io.print(line) }
        }
        return ExitCode.success
    }

    /// The facts from the daemon when one answers, else read directly, the keys the daemon's
    /// rules can read (none without a daemon), and each fact's source as the daemon names it (nil
    /// from a daemon that does not say, and without one).
    static func currentFacts(_ arguments: ParsedArguments, _ io: CommandIO) async throws
        -> ([FactKey: FactState], Set<FactKey>, [FactKey: String]?)
    {
        let socket = arguments.controlSocket(io)
        if let client = try ControlClient.connect(path: socket) {
            var answer = try await client.response(to: ControlRequest.facts.document)
            // A daemon older than the `facts` request: its `status` has the facts without sources.
            if ControlDocuments.errorMessage(in: answer) == "unknown command 'facts'",
                let again = try ControlClient.connect(path: socket)
            {
                answer = try await again.response(to: ControlRequest.status.document)
            }
            if let message = ControlDocuments.errorMessage(in: answer) { throw CommandError.runtime(message) }
            var facts: [FactKey: FactState] = [:]
            if case .object(let members)? = answer.member("facts") {
                for (key, value) in members { facts[FactKey(key)] = FactState(json: value) ?? .unknown }
            }
            var reads: Set<FactKey> = Set(facts.keys)
            if case .array(let unknown)? = answer.member("unknown") {
                reads.formUnion(unknown.compactMap { $0.stringValue.map { FactKey($0) } })
            }
            var sources: [FactKey: String]?
            if case .object(let members)? = answer.member("sources") {
                sources = Dictionary(
                    members.compactMap { key, source in source.stringValue.map { (FactKey(key), $0) } },
                    uniquingKeysWith: { first, _ in first })
            }
            return (facts, reads, sources)
        }
        io.noDaemon(socket)
        // A snapshot that cannot be taken (no netlink socket) is an error to show, not a table of
        // facts that all look missing.
        return (try NetworkSnapshot.current().facts, [], nil)
    }
}
