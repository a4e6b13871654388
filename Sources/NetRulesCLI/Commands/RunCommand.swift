import FoundationEssentials
internal import Glibc
import NetRulesActions
import NetRulesCore
import NetRulesDaemon
internal import NetRulesSystem

/// `netrules run [RULES…]`: the daemon, in the foreground (systemd-friendly).
enum RunCommand: Command {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Run the daemon in the foreground: watch the network and act on the rules.",
        discussion: """
            Rules default to /etc/netrules/*.yaml (as root) or ~/.config/netrules/*.yaml. SIGHUP, or \
            a change to a rule file, reloads them: a broken file keeps the running rules. SIGTERM or \
            SIGINT stops after running actions finish; the exit code is then 0. With NOTIFY_SOCKET set \
            (systemd Type=notify), readiness, reloads and shutdown are reported.
            """,
        arguments: [
            ArgumentSpec(
                name: "rules", help: "Rule files or directories of *.yaml files.", isOptional: true, isRepeating: true)
        ],
        options: [
            OptionSpec(
                long: "state-dir", valueName: "dir",
                help:
                    "What survives a restart: rule state, the webhook outbox (default: /var/lib/netrules as root, else $XDG_STATE_HOME/netrules)."
            ),
            OptionSpec(
                long: "socket", valueName: "path",
                help:
                    "The control socket the client commands use (default: /run/netrules/control.sock as root, else under $XDG_RUNTIME_DIR).",
                aliases: ["control-socket"]),
            OptionSpec(
                long: "history-limit", valueName: "n",
                help: "How many firings 'netrules history' can show (in <state-dir>/history.jsonl); 0 keeps none.",
                defaultValue: "1000"),
        ] + outboxOptions + [
            OptionSpec(
                long: "log-level", valueName: "level", help: "The lowest level logged.", defaultValue: "notice",
                allowedValues: Logger.Level.allCases.map(\.description))
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let environment = io.environment
        let paths = DaemonPaths.defaults(
            environment: environment, stateDirectory: arguments.value("state-dir"),
            controlSocket: arguments.value("socket"))
        let ruleFiles = arguments.positional("rules").isEmpty ? [paths.ruleDirectory] : arguments.positional("rules")
        guard let historyLimit = Int(arguments.value("history-limit") ?? "1000"), historyLimit >= 0,
            historyLimit <= 1_000_000
        else {
            throw arguments.invalidValue("--history-limit takes a whole number from 0 to 1000000")
        }
        let outboxLimits: OutboxLimits
        switch Self.outboxLimits(arguments) {
        case .success(let limits): outboxLimits = limits
        case .failure(let error): throw arguments.invalidValue(error.message)
        }
        let level = Logger.Level.allCases.first { $0.description == arguments.value("log-level") } ?? .notice
        let logger = Logger(
            label: "netrules.daemon", level: level, sink: StandardErrorLogSink(environment: environment))
        let notifier = SystemdNotifier(environment: environment)
        let isRoot = geteuid() == 0

        // One daemon per state directory and per control socket, settled before anything else:
        // a second daemon would fire every rule again and overwrite the first one's state.
        let lock: StateDirectoryLock
        do {
            lock = try StateDirectoryLock(directory: paths.stateDirectory)
        } catch {
            logger.critical("\(error)")
            return 1
        }
        defer { lock.release() }
        let listener: ControlServer.Listener
        do {
            listener = try ControlServer.listen(at: paths.controlSocket)
        } catch {
            logger.critical("cannot open the control socket: \(error)")
            return 1
        }

        // Signals are registered before anything can report ready (STYLE §24).
        let signals: SignalEvents
        do {
            signals = try SignalEvents.register()
        } catch {
            logger.critical("cannot catch signals: \(error)")
            return 1
        }
        let watcher: RuleFileWatcher?
        do {
            watcher = try RuleFileWatcher(paths: ruleFiles)
        } catch {
            // Reload on SIGHUP still works; say why files are not watched.
            logger.warning("not watching the rule files for changes: \(error)")
            watcher = nil
        }
        var options = DaemonOptions(
            ruleFiles: ruleFiles, paths: paths, environment: environment, logger: logger,
            notify: { try? notifier.notify($0) },
            trustProblem: { FileTrust.problem(withFile: $0, runningAsRoot: isRoot, kind: $1) },
            historyLimit: historyLimit, outboxLimits: outboxLimits)
        // Started by the daemon once its core is up and before its observers, stopped in reverse
        // once running actions finished: signals, the rule-file watcher, the control socket.
        options.services.attached = [
            AttachedService("signals") { daemon in
                for await signal in signals {
                    switch signal {
                    case .hangup:
                        logger.notice("SIGHUP: reloading the rules")
                        daemon.reload()
                    case .terminate, .interrupt:
                        logger.notice("\(signal): shutting down")
                        daemon.shutdown()
                    }
                }
            },
            AttachedService("rule file watcher") { daemon in
                guard let watcher else { return }
                let (changes, continuation) = AsyncStream.makeStream(
                    of: Void.self, bufferingPolicy: .bufferingNewest(1))
                let reader = Task(executorPreference: TaskPlacement.preferred) {
                    for await _ in changes {
                        logger.notice("a rule file changed: reloading")
                        daemon.reload()
                    }
                }
                defer { reader.cancel() }
                do {
                    try await watcher.run(reporting: continuation)
                } catch is CancellationError {
                } catch {
                    logger.warning("stopped watching the rule files: \(error)")
                }
                continuation.finish()
            },
            AttachedService("control socket") { daemon in
                let server = ControlServer(
                    path: paths.controlSocket, queries: daemon, logger: logger.child("netrules.control"))
                try await server.run(on: listener)
            },
        ]
        let code = await Daemon(options: options).run()
        // Invalid rules at start end the daemon before it serves on the socket: remove it anyway.
        listener.discard(at: paths.controlSocket)
        signals.finish()
        return code
    }
}
