import Glibc
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemonCore
import NetRulesLinux
import NetRulesProbes
import NetRulesSystem
import Synchronization

extension Daemon {
    // MARK: - Rules

    /// Loads and fully validates the rule files; nil (after logging why) when they cannot be used.
    /// `unreadable` tells a file that could not be read (exit 66, EX_NOINPUT) from invalid content (exit 65);
    /// `rendered` is what was wrong, as `check` prints it, with its diagnostics and refused files.
    /// It reads files: run it on `BlockingPool`.
    static func load(_ options: DaemonOptions) -> (result: LoadResult?, unreadable: Bool, rendered: LoadReport) {
        let logger = options.logger
        let result: LoadResult
        do {
            result = try RuleFiles.load(options.ruleFiles, environment: options.environment, daemon: true)
        } catch {
            logger.error("\(error)")
            return (nil, true, LoadReport(text: "\(error)\n", readError: "\(error)"))
        }
        // One record per diagnostic, on one line (`file:line:column: error: message`), as a log needs.
        for diagnostic in result.diagnostics {
            let text = diagnostic.description + (diagnostic.hint.map { " (hint: \($0))" } ?? "")
            if diagnostic.severity == .error { logger.error(text) } else { logger.warning(text) }
        }
        for (file, count) in result.omitted.sorted(by: { $0.key < $1.key }) {
            logger.error("\(file): and \(count) more problems not logged")
        }
        let files: [String]
        do {
            files = try RuleFiles.expand(options.ruleFiles)
        } catch {
            // load() expanded the same paths a moment ago, so a file went since: a file that was not
            // checked must not pass the trust check as if there were none.
            logger.error("\(error)")
            return (nil, true, LoadReport(text: "\(error)\n", readError: "\(error)"))
        }
        let distrusted = RuleFiles.trustProblems(result, files: files) {
            options.trustProblem($0, $1)
        }
        for problem in distrusted { logger.error(problem) }
        let rendered = LoadReport(
            text: result.renderedDiagnostics() + distrusted.map { "error: \($0)\n" }.joined(),
            diagnostics: result.diagnostics, refused: distrusted, errorsByFile: result.errorsByFile)
        guard !result.hasErrors, distrusted.isEmpty else { return (nil, false, rendered) }
        return (result, false, rendered)
    }

    /// Performs `DaemonEffect.loadRules`: tells systemd, reads the files on the pool (never on the
    /// loop), and reports the outcome as an event.
    func startLoadingRules() {
        options.notify("RELOADING=1\nMONOTONIC_USEC=\(sys_monotonicMicroseconds())")
        let options = self.options
        let events = self.events
        BlockingPool.shared.spawn {
            self.kernelHasNL80211.store(WiFiSource.kernelHasNL80211, ordering: .relaxed)
            let (result, _, rendered) = Self.load(options)
            if let loaded = result {
                events.yield(.reloaded(loaded.ruleSet, report: rendered))
            } else {
                events.yield(.reloadFailed(report: rendered))
            }
        }
    }

    // MARK: - Observers

    /// Starts the observers the rule set needs and stops those it no longer needs (their facts
    /// become unknown, through the core); an observer whose configuration did not change keeps
    /// running (and keeps its facts).
    func configureObservers(for ruleSet: RuleSet) {
        signalSampling.set(ruleSet.signalSamplingInterval(watching: !watchers.isEmpty))
        let log = logger.child("netrules.observers")
        let entries =
            options.services.observers?(ruleSet, signalSampling, log)
            ?? ObserverPlan(
                ruleSet: ruleSet, loop: options.loop, kernelHasNL80211: kernelHasNL80211.load(ordering: .relaxed),
                signalSampling: signalSampling, logger: log
            ).entries
        let wanted = Set(entries.map(\.identity))
        for (identity, entry) in observerEntries where !wanted.contains(identity) {
            observers.removeValue(forKey: identity)?.task.cancel()
            events.yield(.observerRetired(identity: identity, name: entry.observer.name))
        }
        observerEntries = Dictionary(entries.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        let runner = self.runner
        subscriptions.subscribe("online gate", keys: [.connectivity]) { changes in
            await runner.connectivityChanged(to: changes.last?.new.value?.plainText)
        }
        if let entry = entries.first(where: { $0.portal != nil }) {
            // A probe whose settings did not change keeps running: keep the subscription of that one.
            if observers[entry.identity] == nil, let portal = entry.portal {
                subscriptions.subscribe(
                    "portal", keys: PortalProbe.recheckKeys, namespaces: PortalProbe.recheckNamespaces
                ) { _ in
                    portal.recheck()
                }
            }
        } else {
            subscriptions.unsubscribe("portal")
        }
        configureProber(for: ruleSet)
        for entry in entries where observers[entry.identity] == nil { start(entry) }
    }

    /// Starts an observer the core asked to start again, if the rules still run it and it is not running.
    func restartObserver(_ identity: String) {
        guard observers[identity] == nil, let entry = observerEntries[identity] else { return }
        start(entry)
    }

    /// Runs one observer as a task of its own; its updates and its end reach the core as events.
    private func start(_ entry: ObserverPlan.Entry) {
        let observer = entry.observer
        let identity = entry.identity
        let complete = observer.completeNamespaces
        let sink = events
        // Each update goes straight onto the daemon's event stream, from the observer's thread.
        @Sendable func completed(_ update: FactUpdate) -> FactUpdate {
            var update = update
            if !complete.isEmpty { update.completeNamespaces.formUnion(complete) }
            return update
        }
        let reporter = FactReporter(
            { update in sink.yield(.facts(completed(update), from: identity)) },
            all: { updates in
                sink.yield(.factUpdates(complete.isEmpty ? updates : updates.map(completed), from: identity))
            })
        let clock = self.clock
        let started = clock.now
        let task = Task(executorPreference: options.loop) {
            var failure: String?
            do {
                try await observer.run(reporting: reporter)
            } catch is CancellationError {
            } catch {
                failure = "\(error)"
            }
            if !Task.isCancelled {
                sink.yield(
                    .observerEnded(
                        identity: identity, name: observer.name, error: failure, ranFor: clock.now - started,
                        owns: observer.ownedKeys)
                )
            }
        }
        observers[identity] = (task, started)
    }

    /// Samples `signal` while a rule or a `watch` client reads it, and not at all otherwise.
    func updateSignalSampling() {
        signalSampling.set(core.ruleSet.signalSamplingInterval(watching: !watchers.isEmpty))
    }

    /// Keeps a prober for the places with proofs: the same one while they are unchanged, so a
    /// reload does not prove them again; its outcomes reach the event stream as `.proof`.
    func configureProber(for ruleSet: RuleSet) {
        let proved = ruleSet.places.filter { !$0.proofs.isEmpty }
        let identity = proved.map { "\($0.name)\u{0}\($0.fingerprint)" }.joined(separator: "\u{1}")
        if identity != proberIdentity || proved.isEmpty {
            prober?.stopAll()
            prober = nil
            proberIdentity = identity
            if !proved.isEmpty {
                let sink = events
                let prove = options.services.proofs ?? PlaceProber.handshakes()
                prober = PlaceProber(
                    places: proved, loop: options.loop, clock: QuietClock(loop: options.loop),
                    logger: options.logger.child("places"), prove: prove
                ) { place, round, outcome in
                    sink.yield(.proof(place: place, round: round, outcome: outcome))
                }
            }
        }
        syncProofs()
    }

    func stopObservers() async {
        prober?.stopAll()
        let tasks = observers.values.map(\.task)
        observers = [:]
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Starts no more firings (the queued ones stay in flight: `ActionRunner.startNoMoreFirings`)
    /// and waits for running actions, at most `shutdownGrace`; then stops them (processes get SIGTERM
    /// then SIGKILL, webhook retries stay in the outbox, blocked writes are abandoned). Firings not
    /// finished stay in flight and resume at the next start.
    func drainRunner() async {
        let runner = self.runner
        let (grace, loop) = (options.shutdownGrace, options.loop)
        await runner.startNoMoreFirings()
        if await withTimeLimit(grace, on: loop, { await runner.drain() }) != nil { return }
        logger.warning(
            "shutdown: actions still running after \(DurationSyntax.format(grace)): stopping them; "
                + "unfinished firings resume at the next start")
        await runner.stop()
        if await withTimeLimit(.seconds(5), on: loop, { await runner.drain() }) == nil {
            logger.warning("shutdown: some actions did not stop within 5s; exiting anyway")
        }
    }

    // MARK: - Persistence

    /// Appends one line to the journal (one write(2)): it survives a SIGKILL at any instant, and
    /// the journal's own thread flushes it to the disk when asked; true when it was appended. A
    /// line that cannot be appended makes the core write a snapshot instead; the store logs the
    /// failure, once while they go on (`PersistenceFailures`).
    func append(_ line: JournalDelta) async -> Bool {
        do {
            try store.append(line)
            return true
        } catch {
            await perform(.journalAppendFailed)
            return false
        }
    }

    /// Replaces the saved state with a snapshot and empties the journal: the journal moves on to
    /// a new segment here, the snapshot is written on the pool (`SnapshotWriter`), and a failure
    /// reaches the core as `DaemonEvent.snapshotFailed` (the store logs it, once while they go on).
    func writeSnapshot(_ state: PersistedState) {
        let events = self.events
        store.writeSnapshot(state) { _ in events.yield(.snapshotFailed) }
    }
}
