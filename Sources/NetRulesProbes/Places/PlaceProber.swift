import NetRulesCore
import NetRulesHTTP
import NetRulesSystem
import Synchronization

/// Runs the proofs of `places:` while their conditions hold, and reports each outcome with the
/// round it was made for.
///
/// The daemon says what it wants after every change of a place's facts (``want(_:round:)``): a
/// round while the place's condition holds, nil when it does not. A new round cancels the proofs
/// in flight (their answer would be for the network before) and proves at once; then the proofs
/// run again every `verify_interval` while the round lasts, and sooner after a failure (5 s
/// doubling up to the interval, so a NAS still booting is noticed). Nothing runs, and no timer is
/// armed, for a place whose condition does not hold. A proof in flight runs on a thread of its own
/// and never blocks the daemon; its answer reaches it as an event (`report`), and the engine
/// drops an answer for a round that is over.
package final class PlaceProber: Sendable {
    /// Proves one place: every proof, in order; the first failure decides.
    package typealias Prove = @Sendable (PlaceDefinition) async -> ProofOutcome
    /// Receives an outcome: the place's name, the round it was proved for, the outcome.
    package typealias Report = @Sendable (String, UInt64, ProofOutcome) -> Void

    /// The first retry after a failed proof; it doubles up to the place's `verify_interval`.
    static let firstRetry: Duration = .seconds(5)

    private let places: [String: PlaceDefinition]
    private let clock: any Clock<Duration>
    private let loop: ThreadExecutor
    private let logger: Logger
    private let prove: Prove
    private let report: Report
    private let running = Mutex<[String: (round: UInt64, task: Task<Void, Never>)]>([:])

    /// Creates a prober of `places` (those with proofs).
    ///
    /// - Parameters:
    ///   - loop: The event loop the proving tasks run on.
    ///   - clock: Paces the re-verifications (`QuietClock` in the daemon: no wake-ups between them).
    ///   - logger: Where a failed proof is said, once per streak of the same failure: a pin
    ///     mismatch (the spoofing the proofs exist to catch) at `warning`, any other failure at
    ///     `notice`.
    ///   - prove: Runs a place's proofs (`PlaceProber.handshakes(executor:)` in production).
    ///   - report: Takes each outcome; called from the prober's tasks, it must not block.
    package init(
        places: [PlaceDefinition], loop: ThreadExecutor, clock: any Clock<Duration>, logger: Logger = .disabled,
        prove: @escaping Prove, report: @escaping Report
    ) {
        self.loop = loop
        self.places = Dictionary(places.filter { !$0.proofs.isEmpty }.map { ($0.name, $0) }) { first, _ in first }
        self.clock = clock
        self.logger = logger
        self.prove = prove
        self.report = report
    }

    /// The names of the places this prober proves.
    package var placeNames: Set<String> { Set(places.keys) }

    /// Proves place `name` for `round` (its condition holds), or stops proving it (nil). The same
    /// round again changes nothing.
    package func want(_ name: String, round: UInt64?) {
        guard let place = places[name] else { return }
        let old = running.withLock { running -> Task<Void, Never>? in
            if let round, running[name]?.round == round { return nil }
            let old = running.removeValue(forKey: name)?.task
            if let round { running[name] = (round, start(place, round: round)) }
            return old
        }
        old?.cancel()
    }

    /// The places being proved now, with their rounds (for tests and `status`).
    package var rounds: [String: UInt64] { running.withLock { $0.mapValues(\.round) } }

    /// Stops every proof (shutdown, reload).
    package func stopAll() {
        let tasks = running.withLock { running -> [Task<Void, Never>] in
            defer { running = [:] }
            return running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    private func start(_ place: PlaceDefinition, round: UInt64) -> Task<Void, Never> {
        let (clock, prove, report, logger) = (self.clock, self.prove, self.report, self.logger)
        return Task(executorPreference: loop) {
            var retry = Self.firstRetry
            var logged: String?
            while !Task.isCancelled {
                let outcome = await prove(place)
                if Task.isCancelled { return }
                report(place.name, round, outcome)
                switch outcome {
                case .passed:
                    logged = nil
                case .failed(let reason) where reason != logged:
                    logged = reason
                    Self.log(reason, of: place, to: logger)
                case .failed:
                    break
                }
                let delay: Duration
                if case .passed = outcome {
                    retry = Self.firstRetry
                    delay = place.verifyInterval
                } else {
                    delay = min(retry, place.verifyInterval)
                    retry = min(retry * 2, place.verifyInterval)
                }
                do { try await clock.sleep(for: delay) } catch { return }
            }
        }
    }
}

extension PlaceProber {
    /// Says why `place` is not proved: a pin mismatch names the host, the key it presented and
    /// the pinned ones, at `warning`; another failure (no connection, a timeout) at `notice`.
    static func log(_ reason: String, of place: PlaceDefinition, to logger: Logger) {
        if reason.contains("pin mismatch") {
            let pins = place.proofs.flatMap(\.pins).joined(separator: ", ")
            logger.warning(
                "place '\(place.name)' not proved: \(reason) (pinned: \(pins)); a network that pretends to be "
                    + "\(place.name), or a new key on its server",
                metadata: [("place", place.name)])
        } else {
            logger.notice("place '\(place.name)' not proved: \(reason)", metadata: [("place", place.name)])
        }
    }

    /// The production proofs: a TLS handshake per proof over the default route's interface, its
    /// name resolved by the system's resolver (the current network's DNS), the pin as the trust
    /// anchor, bounded by the place's timeout.
    package static func handshakes(executor: BlockingExecutor = .dedicatedThreads) -> Prove {
        { place in
            for proof in place.proofs {
                guard let interface = await executor.run({ DefaultRoute.interfaceName() }) else {
                    return .failed(reason: "\(proof): no default route")
                }
                let handshake = TLSHandshake(
                    host: proof.host, port: proof.port, pins: proof.pins, verifiesChain: false,
                    timeout: place.timeout, interface: interface)
                if case .failed(let reason) = reason(await handshake.perform(executor: executor), proof, place) {
                    return .failed(reason: reason)
                }
            }
            return .passed
        }
    }

    /// What a handshake's outcome means for a proof, in words for `status`, `explain` and the history.
    static func reason(_ outcome: TLSHandshake.Outcome, _ proof: PlaceProof, _ place: PlaceDefinition) -> ProofOutcome {
        switch outcome {
        case .completed:
            return .passed
        case .mismatch(let presented):
            let key = presented.map { "presented \($0.pin)" } ?? "presented a key"
            return .failed(reason: "\(proof): pin mismatch: \(key), which matches none of the pins")
        case .failed(let error):
            switch error.code {
            case .timeout: return .failed(reason: "\(proof): timeout after \(DurationSyntax.format(place.timeout))")
            case .couldNotResolve: return .failed(reason: "\(proof): cannot resolve \(proof.host): \(error.message)")
            case .couldNotConnect:
                return .failed(reason: "\(proof): no connection (no route, or refused): \(error.message)")
            case .tls: return .failed(reason: "\(proof): TLS error: \(error.message)")
            default: return .failed(reason: "\(proof): \(error.message)")
            }
        }
    }
}
