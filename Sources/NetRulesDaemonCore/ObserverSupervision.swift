import NetRulesCore

/// What `DaemonCore` knows of the observers, to supervise them: the facts each one reported (so
/// they can be made unknown when it ends), and when each one that ended is due to start again.
///
/// An observer that ends or fails on its own is not trusted for anything it said: every fact it
/// reported, and every fact of a namespace it reported whole (`interfaces.*` for netlink), becomes
/// unknown at once, unless another running observer reported it too. It is started again after a
/// delay that doubles from ``initialDelay`` to ``maximumDelay``, and starts over from
/// ``initialDelay`` once a run lasted ``stableAfter``. A value: the core's tests walk it on
/// virtual time.
package struct ObserverSupervision {
    package static let initialDelay: Duration = .seconds(1)
    package static let maximumDelay: Duration = .seconds(60)
    /// A run at least this long resets the delay.
    package static let stableAfter: Duration = .seconds(30)

    /// What one observer reported while it ran.
    private struct Reports {
        package var keys: Set<FactKey> = []
        package var completeNamespaces: Set<String> = []
    }

    /// A restart that is due.
    package struct Restart: Equatable {
        package var identity: String
        package var name: String
        /// How many times in a row it has ended quickly, this restart included.
        package var attempt: Int
    }

    /// An observer that ended and has not reported since it started again: what `status` shows.
    package struct Failure: Equatable, Sendable {
        package var name: String
        /// Why it ended, nil when it simply returned.
        package var error: String?
        /// When it first ended in this series of failures.
        package var since: Instant
        /// How many times in a row it has ended.
        package var attempts: Int
        /// When it starts again; nil once it has (it has not reported anything yet).
        package var nextAttempt: Instant?
        /// The facts it is the source of, and the rules unknown while they are.
        package var facts: [FactKey]
        package var waitingRules: [String]
    }

    private var reports: [String: Reports] = [:]
    /// The observers that ended and have not reported since, by identity.
    package private(set) var failures: [String: Failure] = [:]
    /// How many times in a row each observer ended before it was stable.
    private var quickEnds: [String: Int] = [:]
    /// Restarts waiting for their time, by identity.
    private var pending: [String: (name: String, due: Instant, attempt: Int)] = [:]

    /// Notes the keys an update from `identity` names (unknown ones included: the observer spoke of them).
    package mutating func record(_ update: FactUpdate, from identity: String) {
        record(CollectionOfOne(update), from: identity)
    }

    /// Notes the keys of updates `identity` reported together (a plugin's one read), with one
    /// look-up of the observer's record for all of them.
    package mutating func record(_ updates: some Collection<FactUpdate>, from identity: String) {
        // Reporting again is the sign it works again.
        if failures[identity] != nil { failures[identity] = nil }
        var reported = reports.removeValue(forKey: identity) ?? Reports()
        for update in updates {
            reported.keys.formUnion(update.changes.keys)
            if !update.completeNamespaces.isEmpty { reported.completeNamespaces.formUnion(update.completeNamespaces) }
        }
        reports[identity] = reported
    }

    /// The observer `identity` ended after running for `ranFor`: the update that makes its facts
    /// unknown (given the store as it is), and the delay before it starts again.
    /// `repeated` tells an end with the same error as the last one, before it reported anything.
    package mutating func ended(
        _ identity: String, name: String, error: String? = nil, ranFor: Duration, owns: Set<FactKey> = [],
        at now: Instant, facts: FactStore
    ) -> (unknown: FactUpdate, delay: Duration, attempt: Int, repeated: Bool) {
        let update = forget(identity, facts: facts)
        let previous = ranFor >= Self.stableAfter ? 0 : quickEnds[identity, default: 0]
        quickEnds[identity] = previous + 1
        var delay = Self.initialDelay
        for _ in 0..<min(previous, 16) { delay = min(delay * 2, Self.maximumDelay) }
        pending[identity] = (name, now + delay, previous + 1)
        let earlier = failures[identity]
        let keys = Set(update.changes.keys).union(owns).union(earlier?.facts ?? [])
        failures[identity] = Failure(
            name: name, error: error, since: earlier?.since ?? now, attempts: (earlier?.attempts ?? 0) + 1,
            nextAttempt: now + delay, facts: keys.sorted { $0.rawValue < $1.rawValue },
            waitingRules: earlier?.waitingRules ?? [])
        return (update, delay, previous + 1, earlier != nil && earlier?.error == error)
    }

    /// The rules that wait for the observer `identity` to be back, for `status`.
    package mutating func noteWaitingRules(_ identity: String, _ rules: [String]) {
        guard !rules.isEmpty else { return }
        failures[identity]?.waitingRules = rules
    }

    /// The observer `identity` was stopped because the rules no longer need it: the update that
    /// makes its facts unknown; it is not started again.
    package mutating func retired(_ identity: String, facts: FactStore) -> FactUpdate {
        pending[identity] = nil
        failures[identity] = nil
        quickEnds[identity] = nil
        return forget(identity, facts: facts)
    }

    /// The earliest pending restart, for the daemon's one deadline.
    package var nextRestart: Instant? { pending.values.map(\.due).min() }

    /// The restarts due at `now`, removed from those pending, in identity order.
    package mutating func takeDue(at now: Instant) -> [Restart] {
        let due = pending.filter { $0.value.due <= now }.sorted { $0.key < $1.key }
        for (identity, _) in due {
            pending[identity] = nil
            failures[identity]?.nextAttempt = nil
        }
        return due.map { Restart(identity: $0.key, name: $0.value.name, attempt: $0.value.attempt) }
    }

    /// Forgets what `identity` reported; the update making unknown what no other observer reported.
    private mutating func forget(_ identity: String, facts: FactStore) -> FactUpdate {
        let ended = reports.removeValue(forKey: identity) ?? Reports()
        var lost = ended.keys
        if !ended.completeNamespaces.isEmpty {
            for key in facts.keys where ended.completeNamespaces.contains(String(key.namespace)) { lost.insert(key) }
        }
        for other in reports.values {
            lost.subtract(other.keys)
        }
        var update = FactUpdate()
        for key in lost where facts[key].isKnown { update[key] = .unknown }
        return update
    }
}
