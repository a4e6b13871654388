@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// `netrules run` as one service group: built from the daemon's options, it owns every service
/// and starts and stops them in a declared order (the swift-service-lifecycle model). It decides
/// nothing about rules, facts or firings: `DaemonCore` does.
///
/// Start order, each step before the next can fail or report ready:
/// 1. the state-directory lock (one daemon per state directory: a second would fire every rule again);
/// 2. the control socket's listener (one daemon per socket);
/// 3. signals (registered before anything can report ready, STYLE §24) and the rule-file watcher;
/// 4. the `Daemon`: runner → core (rules loaded, state restored, `READY=1`) → the attached
///    services (signals, rule-file watcher, control socket, the MQTT client) → observers.
///
/// Shutdown runs in reverse: observers stop, the runner finishes (its results still recorded),
/// the state is saved, the attached services stop, the socket file is removed, the lock released.
package struct DaemonServiceGroup: Sendable {
    package var options: DaemonOptions
    /// The version `mqtt:` reports to Home Assistant (the executable's).
    package var version: String

    /// - Parameters:
    ///   - options: How to run; `notify` and `trustProblem` are set here to systemd's
    ///     notification socket and the file-trust checks for the user the daemon runs as.
    ///   - version: The executable's version, for the MQTT discovery document.
    package init(options: DaemonOptions, version: String) {
        self.options = options
        self.version = version
        let notifier = SystemdNotifier(environment: options.environment)
        // Sd_notify is advisory; without NOTIFY_SOCKET there is nobody to tell.
        self.options.notify = { try? notifier.notify($0) }
        let isRoot = geteuid() == 0
        self.options.trustProblem = { FileTrust.problem(withFile: $0, runningAsRoot: isRoot, kind: $1) }
    }

    /// Runs the daemon until it is asked to stop; returns its exit code (0 after a clean shutdown,
    /// 1 when a service cannot start, 65/66 for rules that are invalid or cannot be read).
    package func run() async -> Int32 {
        let logger = options.logger
        let paths = options.paths
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
        let signals: SignalEvents
        do {
            signals = try SignalEvents.register()
        } catch {
            logger.critical("cannot catch signals: \(error)")
            listener.discard(at: paths.controlSocket)
            return 1
        }
        let watcher: RuleFileWatcher?
        do {
            watcher = try RuleFileWatcher(paths: options.ruleFiles)
        } catch {
            // Reload on SIGHUP still works; say why files are not watched.
            logger.warning("not watching the rule files for changes: \(error)")
            watcher = nil
        }
        var options = self.options
        options.services.attached = Self.attachedServices(
            signals: signals, watcher: watcher, listener: listener, paths: paths, logger: logger)
        // The MQTT client (issue 25): idle without an `mqtt:` section; started last, stopped first,
        // once the runner drained.
        options.services.attached.append(
            FleetService(environment: options.environment, version: version, logger: logger.child("netrules.mqtt"))
                .attached)
        // systemd's watchdog (WatchdogSec=): pinged from the daemon's loop, so a loop that stops
        // gets the service restarted.
        if let watchdog = SystemdWatchdog(environment: options.environment, pid: getpid()) {
            let notify = options.notify
            options.services.attached.append(
                AttachedService("watchdog") { _ in await watchdog.run { notify("WATCHDOG=1") } })
        }
        let code = await Daemon(options: options).run()
        // Invalid rules at start end the daemon before it serves on the socket: remove it anyway.
        listener.discard(at: paths.controlSocket)
        signals.finish()
        return code
    }

    /// The services that live beside the core, in start order: signals, the rule-file watcher,
    /// the control socket. Each turns what it hears into a `DaemonEvent` (`reload()`, `shutdown()`)
    /// or answers queries; none decides anything.
    static func attachedServices(
        signals: SignalEvents, watcher: RuleFileWatcher?, listener: ControlServer.Listener, paths: DaemonPaths,
        logger: Logger
    ) -> [AttachedService] {
        [
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
    }
}
