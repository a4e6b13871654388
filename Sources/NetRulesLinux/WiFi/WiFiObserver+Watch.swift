import NetRulesCore
import NetRulesSystem
import Synchronization

extension WiFiObserver {
    /// Reports the facts, then waits for association events and, while `sampling` has an
    /// interval, for each sample's deadline; returns once `stop` is raised.
    ///
    /// The deadline is the timeout of the wait for events (`SignalSchedule`): no second timer
    /// hands it a wake-up, and with no reader the timeout is -1, so no timer of any kind is armed.
    /// Returns once `stop` is raised or the task is cancelled; `now` is injected so a test can
    /// drive the loop on virtual time through a scripted session.
    static func watch(
        _ session: some NL80211Session, on loop: ThreadExecutor, wake: WakeEvent, stop: StopFlag,
        sampling: SignalSampling,
        now: () -> ContinuousClock.Instant, report send: (FactUpdate) -> Void
    ) async throws {
        var reported: [FactKey: FactState] = [:]
        func report(_ facts: [FactKey: FactState]) {
            let update = NetworkTable.changes(from: reported, to: facts)
            guard !update.isEmpty else { return }
            for (key, state) in update.changes { reported[key] = state }
            send(update)
        }
        var state = try await offLoop(session) { try $0.currentState() }
        report(state.facts)
        var schedule = SignalSchedule()
        while true {
            let timeout = schedule.timeout(
                interval: sampling.interval, isAssociated: state.sampleTarget != nil, now: now())
            let readable: Bool
            do {
                readable = try await session.waitForEvents(on: loop, wake: wake, timeout: timeout)
            } catch is CancellationError {
                if stop.isRaised || Task.isCancelled { return }
                // A new interval: clear the wake-up and wait again with the new timeout. `stop` is
                // raised before its signal, so a stop whose signal this reset swallowed is seen here.
                wake.reset()
                if stop.isRaised { return }
                continue
            }
            if readable {
                guard !(try session.drainEvents()).isEmpty else { continue }
                state = try await offLoop(session) { try $0.currentState() }
                report(state.facts)
            } else if schedule.takeDue(now: now()), let target = state.sampleTarget {
                for message in try await offLoop(session, { try $0.station(index: target.index, mac: target.bssid) }) {
                    state.applySample(message)
                }
                report(state.facts)
            }
        }
    }
}

extension WiFiObserver {
    /// Runs one of the session's requests on the blocking pool: each waits for the kernel's
    /// answer (a poll with a timeout), which must not happen on the loop (`LoopGuard`). The
    /// session is used by one thread at a time: the watch awaits each request before the next.
    fileprivate static func offLoop<Session: NL80211Session, T: Sendable>(
        _ session: Session, _ request: @escaping @Sendable (Session) throws -> T
    ) async throws -> T {
        let lent = LentSession(session)
        return try await BlockingPool.shared.run { Result { try request(lent.session) } }.get()
    }
}

/// A session lent to the one pool job that uses it while its owner waits (or handed back by the
/// job that opened it).
///
/// `@unchecked Sendable`: the owner does not touch the session until the job has returned.
struct LentSession<Session: NL80211Session>: @unchecked Sendable {
    let session: Session
    init(_ session: Session) { self.session = session }
}

/// Raised once, when the observer's task is cancelled; read by its loop.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
