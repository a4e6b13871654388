import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesLinux
import NetRulesProbes
internal import NetRulesSystem

/// `netrules status [--json] [--socket PATH]`: one snapshot of the network facts.
enum StatusSubcommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show the network as netrules sees it: interfaces, addresses, gateway, DNS, Wi-Fi.",
        discussion: """
            When a netrules daemon answers on the control socket, shows the daemon's facts (probe facts \
            such as connectivity and hosts.* included) and its webhook outbox: the deliveries pending, \
            their size, and how many are in outbox/failed/; otherwise reads the system directly. With \
            --json, one document whose keys are the fact keys rules use: \
            {"version":1,"facts":{"gateway":"…","ip":[…],"interfaces.eth0":"up",…}}, from a daemon with \
            "outbox":{"pending":N,"pending_bytes":N,"failed":N}.

            While the daemon's last reload failed (a rule file saved with errors: the previous rules keep \
            running), a line says so, 'rules: FILE has errors since TIME (N); running the previous rules', \
            and --json adds "failed_reload": {"files":[{"file":…,"errors":N,"since":…}], "problems":[…], \
            "since":…, "running_previous_rules":true}: each file with errors, with its error count and when a \
            reload first found it broken (RFC 3339, UTC), the errors in no file (a refused file, a rule path \
            that cannot be read), and when the first failed reload was. It goes once a reload loads.
            """,
        options: [.json, .controlSocket, .daemonStateDirectory]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let json = arguments.flag("json")
        let document: StatusDocument
        if let client = try ControlClient.connect(path: arguments.controlSocket(io)) {
            let answer = try await client.response(to: ControlRequest.status.document)
            if let message = ControlDocuments.errorMessage(in: answer) { throw CommandError.runtime(message) }
            document = StatusDocument(answer: answer)
        } else {
            io.noDaemon(arguments.controlSocket(io))
            do {
                document = StatusDocument(try NetworkSnapshot.current())
            } catch {
                throw CommandError.runtime("cannot read the network state: \(error)")
            }
        }
        io.stdout.write(json ? document.json : document.text)
        return ExitCode.success
    }
}

/// `netrules watch [--json] [--socket PATH]`: fact changes as they happen.
enum WatchSubcommand: Command {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Print each network fact change as it happens, until interrupted.",
        discussion: """
            When a netrules daemon answers on the control socket, shows the daemon's fact changes; \
            otherwise runs the Linux observers itself. The first lines are the current values. \
            With --json, one line per change: {"at":…,"key":…,"new":…,"old":…,"version":1}.
            """,
        options: [.json, .controlSocket, .daemonStateDirectory]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let json = arguments.flag("json")
        let socket = arguments.controlSocket(io)
        if let client = try ControlClient.connect(path: socket) {
            for try await line in client.stream(ControlRequest.watch.document) {
                if let message = ControlDocuments.errorMessage(in: line) { throw CommandError.runtime(message) }
                io.stdout.write(json ? WatchDocument.json(line) : WatchDocument.text(line))
            }
            // Interrupting watch is the normal way to end it; the daemon going away is not.
            if Task.isCancelled { return ExitCode.success }
            throw CommandError.runtime("the netrules daemon closed the control socket \(socket)")
        }
        io.noDaemon(socket)
        let out = io.stdout
        let err = io.stderr
        return await watchSystem(
            json: json, loop: io.loop, output: { out.write($0) }, errorOutput: { err.write($0) })
    }

    /// Runs the built-in Linux observers and prints each change until the task is cancelled, in
    /// the lines a daemon's changes print as (`WatchDocument`), stamped with milliseconds.
    ///
    /// The first lines are the initial values (changes from unknown).
    /// - Parameters:
    ///   - loop: the event loop the observers wait on.
    ///   - output: receives each line, newline included.
    ///   - errorOutput: receives observer failures and notices, newline included.
    /// - Returns: 0 after cancellation (the shutdown path).
    static func watchSystem(
        json: Bool, loop: ThreadExecutor, output: @Sendable (String) -> Void,
        errorOutput: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        // State-like facts: if the printer falls behind, older updates may go but the newest stays.
        let (stream, continuation) = AsyncStream.makeStream(
            of: FactUpdate.self, bufferingPolicy: .bufferingNewest(1024))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await SystemObservers.run(
                    reporting: FactReporter(continuation), on: loop,
                    logger: Logger(label: "netrules.watch", level: .trace, sink: LineLogSink { errorOutput($0) }))
            }
            var store = FactStore()
            for await update in stream {
                let old = store
                let at = WallClock.rfc3339(nanosecondsSinceEpoch: sys_realtimeNanoseconds())
                for key in store.apply(update).sorted() {
                    let line = ControlDocuments.change(FactChange(key: key, old: old[key], new: store[key], at: at))
                    output(json ? WatchDocument.json(line) : WatchDocument.text(line))
                }
                if Task.isCancelled { break }
            }
            group.cancelAll()
        }
        return ExitCode.success
    }
}

extension CommandIO {
    /// The one line `status`, `watch`, `explain` and `facts` print when they read the system
    /// themselves: a user must not mistake the system's view for the daemon's.
    func noDaemon(_ socket: String) {
        noDaemon(
            socket,
            then: "facts read directly from the system, so the probes' facts (connectivity, portal.url, hosts.*) "
                + "are unknown")
    }

    /// `note: no netrules daemon answered on SOCKET: WHY; THEN` on stderr: every client command
    /// that falls back to reading for itself names the socket it tried, and what it does instead.
    func noDaemon(_ socket: String, then fallback: String) {
        printError("note: " + Self.noDaemonAnswered(socket) + "; " + fallback)
    }

    /// `no netrules daemon answered on SOCKET: no such socket` (or `nothing listening`): the
    /// socket a client tried and why nobody answered there.
    static func noDaemonAnswered(_ socket: String) -> String {
        let exists = if case .success = sys_stat(socket) { true } else { false }
        let why = exists ? "nothing listening on it" : "no such socket"
        return "no netrules daemon answered on \(TerminalText.escaped(socket)): \(why)"
    }
}

extension OptionSpec {
    /// `--socket PATH` (formerly `--control-socket`): where to look for a running daemon.
    static let controlSocket = OptionSpec(
        long: "socket", valueName: "path",
        help: "The daemon's control socket; else /run/netrules/control.sock as root, under $XDG_RUNTIME_DIR otherwise.",
        aliases: ["control-socket"]
    )

    /// `--state-dir DIR`: the state directory a daemon was started with (its socket is there).
    static let daemonStateDirectory = OptionSpec(
        long: "state-dir", valueName: "dir", help: "Find the daemon started with 'run --state-dir DIR'.")
}

extension ParsedArguments {
    /// The control socket: `--socket`, else the daemon's default for this user (or for `--state-dir`).
    func controlSocket(_ io: CommandIO) -> String {
        value("socket")
            ?? DaemonPaths.defaults(environment: io.environment, stateDirectory: value("state-dir")).controlSocket
    }
}

/// `netrules ping HOST… [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [--json]`.
enum PingSubcommand: Command {
    static let spec = CommandSpec(
        name: "ping",
        abstract: "Send ICMP echo requests, like ping; several hosts at once share one socket.",
        discussion: """
            Exits 0 when any reply came, 1 otherwise. Uses an unprivileged ICMP socket when \
            net.ipv4.ping_group_range allows it, else a raw socket (root).
            """,
        arguments: [ArgumentSpec(name: "host", help: "Addresses or names to ping.", isRepeating: true)],
        options: [
            OptionSpec(
                long: "count", short: "c", valueName: "count", help: "Echo requests per host.", defaultValue: "3"),
            OptionSpec(
                long: "interval", short: "i", valueName: "seconds", help: "Time between requests.", defaultValue: "1"),
            OptionSpec(
                long: "timeout", short: "W", valueName: "seconds", help: "How long to wait for each reply.",
                defaultValue: "0.5"),
            OptionSpec(long: "json", help: "Print one JSON object per reply, timeout and summary (JSON Lines)."),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let countText = arguments.value("count") ?? "3"
        guard let count = Int(countText), count >= 1 else {
            throw arguments.invalidValue("--count takes a whole number of at least 1, not '\(countText)'")
        }
        let interval = try seconds(arguments.value("interval") ?? "1", option: "--interval", arguments)
        let timeout = try seconds(arguments.value("timeout") ?? "0.5", option: "--timeout", arguments)
        let pinger: ICMPPinger
        do {
            pinger = try ICMPPinger(loop: io.loop)
        } catch {
            io.printError("Error: " + TerminalText.escaped(error.message))
            return ExitCode.failure
        }
        defer { pinger.close() }
        let out = io.stdout
        let err = io.stderr
        return await ping(
            hosts: arguments.positional("host"), count: count, interval: interval, timeout: timeout,
            json: arguments.flag("json"), pinger: pinger, loop: io.loop, output: { out.write($0 + "\n") },
            errorOutput: { err.write($0 + "\n") })
    }

    /// Pings `hosts` with `pinger` and prints each outcome, then each host's summary.
    /// - Parameters:
    ///   - output: receives each stdout line, without its newline.
    ///   - errorOutput: receives diagnostics, without their newline.
    /// - Returns: 0 when any reply came, 1 otherwise.
    static func ping(
        hosts: [String], count: Int, interval: Duration, timeout: Duration, json: Bool, pinger: ICMPPinger,
        loop: ThreadExecutor, output: @escaping @Sendable (String) -> Void,
        errorOutput: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        let summaries = await HostPing.run(
            hosts: hosts, count: count, interval: interval, timeout: timeout, pinger: pinger, loop: loop
        ) { report in
            switch report {
            case .event(let event): output(json ? PingDocument.json(event) : PingDocument.text(event))
            case .unresolved(let host, let reason): errorOutput("ping: \(host): \(reason)")
            }
        }
        for summary in summaries { output(json ? PingDocument.json(summary) : PingDocument.text(summary)) }
        return summaries.contains { !$0.rtts.isEmpty } ? ExitCode.success : ExitCode.failure
    }

    /// Seconds as ping writes them (`0.5`), or a duration (`500ms`).
    /// - Throws: A usage error naming `option` when `text` is neither, or is longer than 100 years.
    static func seconds(_ text: String, option: String, _ arguments: ParsedArguments) throws(UsageError)
        -> Duration
    {
        let limit = DurationSyntax.seconds(DurationSyntax.maximum)
        if let s = Double(text), s.isFinite, s >= 0 {
            guard s <= limit else { throw arguments.invalidValue("\(option) \(text) is longer than 100 years") }
            return DurationSyntax.duration(seconds: s)
        }
        switch DurationSyntax.parseChecked(text) {
        case .success(let d): return d
        case .failure(.tooLong): throw arguments.invalidValue("\(option) \(text) is longer than 100 years")
        case .failure(.notADuration): break
        }
        throw arguments.invalidValue("\(option) takes seconds (0.5) or a duration (500ms), not '\(text)'")
    }
}

/// `netrules portal [--url URL… | --rules FILE…] [--json]`: one captive-portal classification with
/// its evidence and why it counts.
enum PortalSubcommand: Command {
    static let spec = CommandSpec(
        name: "portal",
        abstract: "Check for a captive portal: online, portal or offline, with the evidence.",
        discussion: """
            Fetches the probe URLs over plain HTTP in parallel without following redirects; the first \
            conclusive answer wins. With --rules, the probes and timeout of those files' connectivity: \
            section (the defaults when they have none); without --url or --rules, Apple's hotspot-detect \
            page and a generate_204 URL. The 'why:' line says why the deciding answer counts: its \
            status, its page or its redirect, against the answer that means online. \
            The verdict is the exit status, for scripts: 0 online, 2 portal, 3 offline (1 when it \
            cannot probe, 64 for a bad option, 65 for rule files with errors).
            """,
        options: [
            OptionSpec(
                long: "url", valueName: "url", help: "A probe URL (repeatable); expects 'Success' or an empty 204.",
                isRepeating: true),
            OptionSpec(
                long: "rules", valueName: "path",
                help: "Use the connectivity: probes of these rule files or directories (repeatable).",
                isRepeating: true),
            OptionSpec(long: "interface", valueName: "name", help: "Bind the probes to this interface."),
            OptionSpec(
                long: "timeout", valueName: "seconds",
                help: "Per-probe timeout (default: 5, or the rule files' connectivity: timeout)."),
            .json,
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let given = try arguments.value("timeout").map {
            try PingSubcommand.seconds($0, option: "--timeout", arguments)
        }
        let urls = arguments.values("url").filter { !$0.isEmpty }
        let rulePaths = arguments.values("rules")
        if !rulePaths.isEmpty {
            guard urls.isEmpty else {
                throw arguments.invalidValue("give either --url or --rules: the rule files name their own probes")
            }
            let loaded = try RuleFiles.load(rulePaths, environment: io.environment)
            if !loaded.diagnostics.isEmpty { io.stderr.write(loaded.renderedDiagnostics()) }
            guard !loaded.hasErrors else { return ExitCode.invalidRules }
            let settings = loaded.ruleSet.connectivity
            let out = io.stdout
            return await classify(
                probes: settings.probes, json: arguments.flag("json"), interface: arguments.value("interface"),
                timeout: given ?? settings.timeout, style: io.stdoutStyle, loop: io.loop,
                output: { out.write($0 + "\n") })
        }
        let timeout = given ?? .seconds(5)
        // As in a rule file's `connectivity:` section: a portal can only intercept plain HTTP.
        for url in urls {
            do {
                _ = try ProbeURL(url)
            } catch {
                throw arguments.invalidValue(
                    "--url '\(url)': \(error.reason); a portal probe URL must be plain http://")
            }
        }
        let out = io.stdout
        return await classify(
            urls: urls, json: arguments.flag("json"),
            interface: arguments.value("interface"), timeout: timeout, style: io.stdoutStyle, loop: io.loop,
            output: { out.write($0 + "\n") })
    }

    /// Classifies the network once and prints the verdict with its evidence.
    ///
    /// - Parameters:
    ///   - urls: Probe URLs; empty uses the defaults (Apple's page and `generate_204`). A given
    ///     URL ending in `generate_204` expects an empty 204, any other a page reading `Success`.
    ///   - interface: Bind the probes to this interface; nil lets routing choose.
    ///   - timeout: The limit on each probe.
    ///   - style: Colour for the verdict on a terminal.
    ///   - loop: The event loop whose timers bound the name look-ups.
    ///   - output: Receives each stdout line, without its newline.
    /// - Returns: The verdict's exit status (``exitCode(for:)``), 1 when there is nothing to probe.
    static func classify(
        urls: [String], json: Bool, interface: String? = nil, timeout: Duration = .seconds(5),
        style: TerminalStyle = .plain, loop: ThreadExecutor, output: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        await classify(
            probes: urls.isEmpty ? ConnectivitySettings.defaultProbes : urls.map(probe(for:)), json: json,
            interface: interface, timeout: timeout, style: style, loop: loop, output: output)
    }

    /// Classifies the network once with `probes` (as a rule file's `connectivity:` gives them).
    static func classify(
        probes: [ConnectivitySettings.Probe], json: Bool, interface: String? = nil, timeout: Duration = .seconds(5),
        style: TerminalStyle = .plain, loop: ThreadExecutor, output: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        guard !probes.isEmpty else { return ExitCode.failure }
        let classifier = PortalClassifier(loop: loop, timeout: timeout, interface: interface)
        let verdict = await classifier.classify(probes)
        output(json ? PortalDocument.json(verdict) : PortalDocument.text(verdict, style: style))
        return exitCode(for: verdict.connectivity)
    }

    /// The exit status that says `connectivity` to a script: 0 online, 2 portal, 3 offline.
    static func exitCode(for connectivity: PortalVerdict.Connectivity) -> Int32 {
        switch connectivity {
        case .online: ExitCode.success
        case .portal: ExitCode.portal
        case .offline: ExitCode.offline
        }
    }

    static func probe(for url: String) -> ConnectivitySettings.Probe {
        url.hasSuffix("generate_204")
            ? .init(url: url, expectedStatus: 204, expectedBody: nil)
            : .init(url: url, expectedStatus: 200, expectedBody: "Success")
    }
}
