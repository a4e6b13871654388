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
        let (logger, paths, loop, ruleFiles) = (options.logger, options.paths, options.loop, options.ruleFiles)
        // Debug builds: while the daemon runs, a blocking call on its loop traps (`LoopGuard`).
        LoopGuard.guardBlockingCalls(on: loop)
        defer { LoopGuard.guardBlockingCalls(on: loop, false) }
        // The lock, the socket and the watches make directories, fsync and stat: on the blocking
        // pool, never the loop (`LoopGuard`), in one job.
        let opened = await BlockingPool.shared.run { () -> Result<Opened, StartFailure> in
            Self.open(paths: paths, ruleFiles: ruleFiles, loop: loop)
        }
        let (lock, listener, watcher): (StateDirectoryLock, ControlServer.Listener, RuleFileWatcher?)
        switch opened {
        case .failure(let failure):
            logger.critical(failure.message)
            return 1
        case .success(let made):
            (lock, listener) = (made.lock, made.listener)
            if let problem = made.watchProblem {
                // Reload on SIGHUP still works; say why files are not watched.
                logger.warning("not watching the rule files for changes: \(problem)")
            }
            watcher = made.watcher
        }
        defer { lock.release() }
        let signals: SignalEvents
        do {
            signals = try SignalEvents.register(on: loop)
        } catch {
            logger.critical("cannot catch signals: \(error)")
            await BlockingPool.shared.run { listener.discard(at: paths.controlSocket) }
            return 1
        }
        var options = self.options
        options.services.attached = Self.attachedServices(
            signals: signals, watcher: watcher, listener: listener, paths: paths, loop: loop, logger: logger)
        // The MQTT client (issue 25): idle without an `mqtt:` section; started last, stopped first,
        // once the runner drained.
        options.services.attached.append(
            FleetService(
                environment: options.environment, version: version, loop: loop, logger: logger.child("netrules.mqtt")
            ).attached)
        // systemd's watchdog (WatchdogSec=): pinged from the daemon's loop, so a loop that stops
        // gets the service restarted.
        if let watchdog = SystemdWatchdog(environment: options.environment, pid: getpid()) {
            let notify = options.notify
            options.services.attached.append(
                AttachedService("watchdog") { _ in await watchdog.run(on: loop) { notify("WATCHDOG=1") } })
        }
        let code = await Daemon(options: options).run()
        // Invalid rules at start end the daemon before it serves on the socket: remove it anyway.
        await BlockingPool.shared.run { listener.discard(at: paths.controlSocket) }
        signals.finish()
        return code
    }

    /// What start-up opens before the daemon runs.
    private struct Opened: Sendable {
        var lock: StateDirectoryLock
        var listener: ControlServer.Listener
        var watcher: RuleFileWatcher?
        /// Why the rule files are not watched, when they are not.
        var watchProblem: String?
    }

    /// A service that cannot start, in the words the log says it with.
    private struct StartFailure: Error {
        var message: String
    }

    /// Blocking: takes the state directory's lock, opens the control socket and watches the rule
    /// files, in that order; a step that fails undoes the ones before it.
    private static func open(paths: DaemonPaths, ruleFiles: [String], loop: ThreadExecutor) -> Result<
        Opened, StartFailure
    > {
        let lock: StateDirectoryLock
        do {
            lock = try StateDirectoryLock(directory: paths.stateDirectory)
        } catch {
            return .failure(StartFailure(message: "\(error)"))
        }
        let listener: ControlServer.Listener
        do {
            listener = try ControlServer.listen(at: paths.controlSocket)
        } catch {
            lock.release()
            return .failure(StartFailure(message: "cannot open the control socket: \(error)"))
        }
        do {
            let watcher = try RuleFileWatcher(paths: ruleFiles, loop: loop)
            return .success(Opened(lock: lock, listener: listener, watcher: watcher))
        } catch {
            return .success(Opened(lock: lock, listener: listener, watcher: nil, watchProblem: "\(error)"))
        }
    }

    /// The services that live beside the core, in start order: signals, the rule-file watcher,
    /// the control socket. Each turns what it hears into a `DaemonEvent` (`reload()`, `shutdown()`)
    /// or answers queries; none decides anything.
    static func attachedServices(
        signals: SignalEvents, watcher: RuleFileWatcher?, listener: ControlServer.Listener, paths: DaemonPaths,
        loop: ThreadExecutor, logger: Logger
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
                let reader = Task(executorPreference: loop) {
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
                    path: paths.controlSocket, queries: daemon, loop: loop, logger: logger.child("netrules.control"))
                try await server.run(on: listener)
            },
        ]
    }
}
