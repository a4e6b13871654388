@preconcurrency import Glibc
import NetRulesCore
import NetRulesMQTT
import NetRulesSystem
import Synchronization

/// The `mqtt:` client as a service beside the daemon (docs/mqtt.md): it publishes the facts of
/// `publish:` to `<prefix>/state`, each firing to `<prefix>/event`, availability, and Home
/// Assistant's discovery config, through one `MQTTLink`.
///
/// It hears the daemon through `factChanges()` and `fleetNotices()` (firings, rule sets) and
/// decides nothing for it. A reload that changes `mqtt:` replaces the link; one that changes
/// the rules replaces the discovery config. Without `mqtt:` it waits for a reload and holds
/// no connection, no thread and no libmosquitto.
package final class FleetService: Sendable {
    /// What `status` shows of the connection.
    package struct Status: Sendable, Equatable {
        package var broker: String
        package var clientID: String
        package var state: String
        /// Wall-clock time (RFC 3339) of the last change of `state`.
        package var since: String
    }

    let environment: [String: String]
    let version: String
    let logger: Logger
    /// The link running now, for `status`.
    let current = Mutex<(link: MQTTLink, since: (ContinuousClock.Instant, String))?>(nil)

    package init(environment: [String: String], version: String, logger: Logger) {
        self.environment = environment
        self.version = version
        self.logger = logger
    }

    /// The attached service that runs it.
    package var attached: AttachedService {
        AttachedService("mqtt") { daemon in try await self.run(daemon) }
    }

    enum Input: Sendable {
        case fact(FactChange)
        case notice(FleetNotice)
        case link(MQTTLink.Event)
    }

    /// Runs until cancelled; a running link publishes `offline` and disconnects then.
    package func run(_ daemon: Daemon) async throws {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
        await daemon.reportFleetStatus { [weak self] in self?.status() }
        let notices = await daemon.fleetNotices()
        let noticeForwarder = Task(executorPreference: TaskPlacement.preferred) {
            for await n in notices { feed.yield(.notice(n)) }
        }
        // Fact changes only while a session has a link to publish them: without `mqtt:` the daemon
        // keeps no watcher for the fleet, so a fact update costs no stream hops here and does not
        // turn on the Wi-Fi signal's sampling (any watcher does).
        var factForwarder: Task<Void, Never>?
        var session: Session?
        defer {
            noticeForwarder.cancel()
            factForwarder?.cancel()
        }
        await withTaskCancellationHandler {
            for await input in inputs {
                switch input {
                case .notice(.rules(let ruleSet)):
                    if session?.settings != ruleSet.mqtt {
                        await daemon.brokerChanged(nil)
                        await session?.stop()
                        session = nil
                        factForwarder?.cancel()
                        factForwarder = nil
                        current.withLock { $0 = nil }
                        if let settings = ruleSet.mqtt {
                            // Watching before the snapshot: a change between the two is published twice, never lost.
                            let facts = await daemon.factChanges()
                            factForwarder = Task(executorPreference: TaskPlacement.preferred) {
                                for await c in facts { feed.yield(.fact(c)) }
                            }
                            session = start(
                                settings, facts: await daemon.facts(), feed: feed,
                                report: daemon.reportSubscribedFacts)
                            if session == nil {
                                factForwarder?.cancel()
                                factForwarder = nil
                            }
                        }
                        await daemon.brokerChanged(session?.link)
                    }
                    session?.rulesChanged(ruleSet)
                case .notice(.fired(let firing, let at)):
                    session?.fired(firing, at: at)
                case .fact(let change):
                    session?.factChanged(change)
                case .link(let event):
                    session?.linkEvent(event)
                    // QoS 1 messages waiting in the outbox go once the broker accepted the connection.
                    if event == .connected, let link = session?.link { await daemon.brokerChanged(link) }
                }
            }
        } onCancel: {
            feed.finish()
        }
        await daemon.brokerChanged(nil)
        await session?.stop()
    }

    /// Makes the link for `settings` and starts it; nil (logged) when it cannot be made.
    func start(
        _ settings: MQTTSettings, facts: FactStore, feed: AsyncStream<Input>.Continuation,
        report: @escaping @Sendable (FactUpdate) -> Void = { _ in }
    ) -> Session? {
        let clientID: String
        do {
            clientID = try settings.clientID ?? MachineClientID.derive()
        } catch {
            logger.error("mqtt: \(error)")
            return nil
        }
        var password: String?
        if let variable = settings.passwordVariable {
            password = environment[variable]
            if (password ?? "").isEmpty {
                logger.error(
                    "mqtt: \(variable) is not set in the daemon's environment: the password cannot be sent; "
                        + "add \(variable)=… to /etc/netrules/environment")
                return nil
            }
        }
        let prefix = settings.prefix(clientID: clientID)
        let configuration = MQTTLink.Configuration(
            broker: settings.broker, clientID: clientID, username: settings.username, password: password,
            caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile,
            insecure: settings.insecure, keepalive: settings.keepalive, prefix: prefix,
            subscriptions: (settings.discovery == nil ? [] : ["homeassistant/status"])
                + settings.subscriptions.map(\.topic))
        let link: MQTTLink
        do {
            link = try MQTTLink(configuration: configuration, logger: logger) { feed.yield(.link($0)) }
        } catch {
            logger.error("mqtt: \(error)")
            return nil
        }
        let task = Task(executorPreference: TaskPlacement.preferred) { [logger] in
            do {
                try await link.run()
            } catch {
                logger.error("mqtt: \(error)")
            }
        }
        current.withLock { $0 = (link, (.now, WallClock.now().rfc3339)) }
        let session = Session(
            settings: settings, link: link, task: task, clientID: clientID, facts: facts, version: version,
            hostName: Self.hostName(), subscribed: SubscribedFacts(settings.subscriptions, logger: logger),
            report: report)
        session.publishState()
        return session
    }

    /// What `status` shows, or nil without a link.
    package func status() -> Status? {
        current.withLock { current -> Status? in
            guard let current else { return nil }
            let (state, _) = current.link.state
            let text: String =
                switch state {
                case .connecting: "connecting"
                case .connected: "connected"
                case .disconnected(let reason): "disconnected: \(reason)"
                }
            return Status(
                broker: current.link.configuration.broker.description, clientID: current.link.configuration.clientID,
                state: text, since: current.since.1)
        }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "netrules" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One link and what it publishes; confined to `FleetService.run`'s task.
final class Session {
    let settings: MQTTSettings
    let link: MQTTLink
    let task: Task<Void, Never>
    let clientID: String
    let version: String
    let hostName: String
    var facts: [FactKey: FactState] = [:]
    var device: FleetDocuments.Device?
    var lastGateway: (FactState, FactState) = (.unknown, .unknown)
    /// The facts `mqtt.NAME` of `subscribe:`, and where their updates go (the daemon).
    var subscribed: SubscribedFacts
    let report: @Sendable (FactUpdate) -> Void

    init(
        settings: MQTTSettings, link: MQTTLink, task: Task<Void, Never>, clientID: String, facts: FactStore,
        version: String, hostName: String, subscribed: SubscribedFacts,
        report: @escaping @Sendable (FactUpdate) -> Void
    ) {
        self.subscribed = subscribed
        self.report = report
        self.settings = settings
        self.link = link
        self.task = task
        self.clientID = clientID
        self.version = version
        self.hostName = hostName
        for key in settings.published { self.facts[key] = facts[key] }
        lastGateway = (facts[.gateway], facts[.gateway6])
        updateRoute(old: (.unknown, .unknown))
    }

    var prefix: String { settings.prefix(clientID: clientID) }

    func publishState() {
        let document = FleetDocuments.state(settings.published) { self.facts[$0] ?? .unknown }
        link.setRetained(topic: "\(prefix)/state", payload: document.compactBytes, coalesced: true)
    }

    func factChanged(_ change: FactChange) {
        if settings.published.contains(change.key) {
            facts[change.key] = change.new
            publishState()
        }
        if change.key == .gateway || change.key == .gateway6 {
            let old = lastGateway
            lastGateway = change.key == .gateway ? (change.new, lastGateway.1) : (lastGateway.0, change.new)
            updateRoute(old: old)
        }
        if change.key == .connectivity, change.new == .value(.string("online")) { link.networkChanged() }
    }

    /// Pauses reconnects while there is no default route (both gateways known absent), and tries
    /// at once when one comes back. A broker on loopback or a unix socket needs no route.
    func updateRoute(old: (FactState, FactState)) {
        if settings.broker.isLocal { return }
        let hadRoute = !(old.0 == .absent && old.1 == .absent)
        let hasRoute = !(lastGateway.0 == .absent && lastGateway.1 == .absent)
        link.setRoute(hasRoute)
        if hasRoute && !hadRoute { link.networkChanged() }
    }

    func fired(_ firing: Firing, at time: String) {
        let document = FleetDocuments.event(
            rule: firing.rule, edge: firing.edge.rawValue, time: time, actions: firing.actions.map(\.kind))
        link.publish(topic: "\(prefix)/event", payload: document.compactBytes)
    }

    func rulesChanged(_ ruleSet: RuleSet) {
        guard let discovery = settings.discovery else { return }
        let next = FleetDocuments.Device(
            clientID: clientID, name: discovery.name ?? hostName, version: version, prefix: prefix,
            discoveryPrefix: discovery.prefix, published: settings.published, rules: ruleSet.rules.map(\.name),
            places: ruleSet.places.map(\.name))
        guard next != device else { return }
        let removed = device.map { FleetDocuments.removedComponents(from: $0, to: next) } ?? []
        device = next
        link.setRetained(topic: next.topic, payload: FleetDocuments.discovery(next, removed: removed).compactBytes)
    }

    func linkEvent(_ event: MQTTLink.Event) {
        subscriptionEvent(event)
        guard case .message(let topic, let payload, _) = event else { return }
        if topic == "homeassistant/status", payload == Array("online".utf8), let device {
            // Home Assistant restarted: it forgets devices whose config it does not hear again.
            link.setRetained(topic: device.topic, payload: FleetDocuments.discovery(device).compactBytes)
            publishState()
        }
    }

    func stop() async {
        link.stop()
        await task.value
        if let update = subscribed.forgetAll() { report(update) }
    }
}
