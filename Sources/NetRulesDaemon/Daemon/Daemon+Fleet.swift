import NetRulesCore
import NetRulesDaemonCore
import NetRulesMQTT
import NetRulesSystem

/// What the MQTT client (`FleetService`) hears from the daemon beside fact changes.
package enum FleetNotice: Sendable {
    /// A firing whose actions started, with the wall-clock time (RFC 3339).
    case fired(Firing, at: String)
    /// The rule set now running (at start and after each reload).
    case rules(RuleSet)
    /// The rules paused by a command now (`RulePause`), after each change; the first after the
    /// first `rules`.
    case paused(Set<String>)
}

extension Daemon {
    /// Firings and rule sets from now on, until the stream's consumer stops; the first notice is
    /// the rule set running now, if the core has started, then the rules paused now.
    package func fleetNotices() -> AsyncStream<FleetNotice> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: FleetNotice.self, bufferingPolicy: .bufferingNewest(1000))
        let id = nextWatcher
        nextWatcher += 1
        fleetListeners[id] = continuation
        if attached != nil {
            continuation.yield(.rules(core.ruleSet))
            continuation.yield(.paused(Set(core.paused.keys)))
        }
        let loop = options.loop
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task(executorPreference: loop) { await self.removeFleetListener(id) }
        }
        return stream
    }

    /// Subscribes the fleet to every change of `keys`, delivered on the daemon's executor in the
    /// core's order (nothing dropped, unlike a `watch` stream), and returns the facts as they are
    /// now: a change after this is delivered, none before it is missed.
    package func subscribeFleet(
        keys: Set<FactKey>, _ deliver: @escaping @Sendable ([Engine.Step.Change]) -> Void
    ) -> FactStore {
        subscriptions.subscribe("fleet", keys: keys) { deliver($0) }
        return core.engine.facts
    }

    /// Ends `subscribeFleet`'s subscription.
    package func unsubscribeFleet() { subscriptions.unsubscribe("fleet") }

    /// Where `status` reads the MQTT connection from (set by the running `FleetService`).
    package func reportFleetStatus(_ status: @escaping @Sendable () -> FleetService.Status?) { fleetStatus = status }

    package func mqtt() async -> FleetService.Status? { fleetStatus?() }

    /// The MQTT link `mqtt:` actions publish to now (nil: none), told again each time it connects.
    package func brokerChanged(_ link: MQTTLink?) async { await runner.brokerChanged(link) }

    /// Takes a command from the broker (`mqtt: commands: true`) onto the event stream: pause
    /// (`paused`) or resume `rule`; the core decides whether it counts. Safe from any thread.
    package nonisolated func command(rule: String, paused: Bool, by: String) {
        events.yield(.pause(rule: rule, paused: paused, by: by))
    }

    func tellFleet(_ notice: FleetNotice) {
        for listener in fleetListeners.values { listener.yield(notice) }
    }

    private func removeFleetListener(_ id: Int) { fleetListeners[id] = nil }
}
