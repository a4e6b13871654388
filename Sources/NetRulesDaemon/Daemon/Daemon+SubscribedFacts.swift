import NetRulesCore
import NetRulesDaemonCore

extension Daemon {
    /// Takes an update of the facts `mqtt.NAME` (`SubscribedFacts`) onto the event stream, like
    /// an observer's; the core does not supervise their source, the MQTT link makes them
    /// unknown itself when it goes down. Safe from any thread.
    package nonisolated func reportSubscribedFacts(_ update: FactUpdate) {
        events.yield(.facts(update, from: nil))
    }
}
