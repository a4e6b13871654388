@preconcurrency import Glibc
import NetRulesCore
import NetRulesDaemonCore
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
    /// The event loop the link and the service's tasks run on.
    let loop: ThreadExecutor
    let logger: Logger
    /// What `status` shows of the client.
    enum Current {
        case link(MQTTLink)
        /// `mqtt:` is there but its client cannot run (no password, no libmosquitto, no client id).
        case cannotStart(broker: String, clientID: String, reason: String, since: WallTime)
    }

    /// The client now, for `status`; nil without `mqtt:`.
    let current = Mutex<Current?>(nil)

    package init(environment: [String: String], version: String, loop: ThreadExecutor, logger: Logger) {
        self.environment = environment
        self.version = version
        self.loop = loop
        self.logger = logger
    }

    /// The attached service that runs it.
    package var attached: AttachedService {
        AttachedService("mqtt") { daemon in try await self.run(daemon) }
    }

    enum Input: Sendable {
        case notice(FleetNotice)
        case link(MQTTLink.Event)
    }

    /// Runs until cancelled; a running link publishes `offline` and disconnects then.
    package func run(_ daemon: Daemon) async throws {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
        await daemon.reportFleetStatus { [weak self] in self?.status() }
        let notices = await daemon.fleetNotices()
        let noticeForwarder = Task(executorPreference: loop) {
            for await n in notices { feed.yield(.notice(n)) }
        }
        var session: Session?
        // The rules paused now, for a session made after the notice (a reload that changes `mqtt:`).
        var paused: Set<String> = []
        defer { noticeForwarder.cancel() }
        await withTaskCancellationHandler {
            for await input in inputs {
                switch input {
                case .notice(.rules(let ruleSet)):
                    if session?.settings != ruleSet.mqtt {
                        await daemon.brokerChanged(nil)
                        await daemon.unsubscribeFleet()
                        await session?.stop()
                        session = nil
                        current.withLock { $0 = nil }
                        if let settings = ruleSet.mqtt {
                            session = await start(settings, daemon: daemon, feed: feed)
                        }
                        await daemon.brokerChanged(session?.link)
                    }
                    session?.rulesChanged(ruleSet, paused: paused)
                case .notice(.paused(let names)):
                    paused = names
                    session?.pausedChanged(names)
                case .notice(.fired(let firing, let at)):
                    session?.fired(firing, at: at)
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
        await daemon.unsubscribeFleet()
        await session?.stop()
    }

    /// Makes the link for `settings`, starts it and subscribes it to the facts it publishes and
    /// the ones its connection depends on (lossless: every change, from the daemon's core); nil
    /// when it cannot be made, with the reason in the log and in `status`.
    func start(_ settings: MQTTSettings, daemon: Daemon, feed: AsyncStream<Input>.Continuation) async -> Session? {
        let clientID: String
        do {
            clientID = try settings.clientID ?? MachineClientID.derive()
        } catch {
            return cannotStart(settings, clientID: "?", "\(error)")
        }
        var password: String?
        if let variable = settings.passwordVariable {
            password = environment[variable]
            if (password ?? "").isEmpty {
                return cannotStart(
                    settings, clientID: clientID,
                    "\(variable), the password of mqtt:, is not set in the daemon's environment; "
                        + "add \(variable)=… to /etc/netrules/environment (or the service's Environment=) and restart netrules"
                )
            }
        }
        let prefix = settings.prefix(clientID: clientID)
        let configuration = MQTTLink.Configuration(
            broker: settings.broker, clientID: clientID, username: settings.username, password: password,
            caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile,
            insecure: settings.insecure, keepalive: settings.keepalive, prefix: prefix,
            subscriptions: (settings.discovery == nil ? [] : ["homeassistant/status"])
                + (settings.commands ? [FleetDocuments.commandTopic(prefix: prefix, level: "+")] : [])
                + settings.subscriptions.map(\.topic))
        let link: MQTTLink
        do {
            link = try MQTTLink(configuration: configuration, loop: loop, logger: logger) { feed.yield(.link($0)) }
        } catch {
            return cannotStart(settings, clientID: clientID, "\(error)")
        }
        let task = Task(executorPreference: loop) { [logger] in
            do {
                try await link.run()
            } catch {
                logger.error("mqtt: \(error)")
            }
        }
        current.withLock { $0 = .link(link) }
        let watched = FleetFacts(published: settings.published, link: link, stateTopic: "\(prefix)/state")
        let facts = await daemon.subscribeFleet(keys: watched.keys) { changes in watched.apply(changes) }
        watched.start(from: facts)
        return Session(
            settings: settings, link: link, task: task, clientID: clientID, version: version,
            hostName: Self.hostName(), subscribed: SubscribedFacts(settings.subscriptions, logger: logger),
            report: daemon.reportSubscribedFacts, logger: logger
        ) { rule, paused in daemon.command(rule: rule, paused: paused, by: "MQTT") }
    }

    /// Logs why the client cannot start and keeps it for `status`; returns nil.
    func cannotStart(_ settings: MQTTSettings, clientID: String, _ reason: String) -> Session? {
        logger.error("mqtt: the client cannot start: \(reason)")
        current.withLock {
            $0 = .cannotStart(
                broker: settings.broker.description, clientID: clientID, reason: reason, since: WallClock.now())
        }
        return nil
    }

    /// What `status` shows, or nil without `mqtt:`.
    package func status() -> Status? {
        current.withLock { current -> Status? in
            switch current {
            case nil:
                return nil
            case .cannotStart(let broker, let clientID, let reason, let since):
                return Status(
                    broker: broker, clientID: clientID, state: "cannot start: \(reason)", since: since.rfc3339)
            case .link(let link):
                let (state, since) = link.state
                return Status(
                    broker: link.configuration.broker.description, clientID: link.configuration.clientID,
                    state: Self.describe(state), since: WallClock.at(since).rfc3339)
            }
        }
    }

    /// The state in words, as `status` shows it after `mqtt: `.
    static func describe(_ state: MQTTLink.State) -> String {
        switch state {
        case .connecting(let reason?, let tries):
            "connecting (\(tries) \(tries == 1 ? "try" : "tries") failed, the last: \(reason))"
        case .connecting(nil, _): "connecting"
        case .connected: "connected"
        case .retrying(let at, let reason, let tries):
            "retrying in \(Self.seconds(until: at)) after: \(reason) (\(tries) \(tries == 1 ? "try" : "tries"))"
        case .noRoute: "waiting for a route to the broker"
        case .stopped: "stopped"
        }
    }

    /// Whole seconds from now to `instant`, at least 0: `8 s`.
    static func seconds(until instant: ContinuousClock.Instant) -> String {
        let (whole, fraction) = ContinuousClock.now.duration(to: instant).components
        return "\(max(0, whole + (fraction > 0 ? 1 : 0))) s"
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "netrules" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One link and what it publishes; confined to `FleetService.run`'s task (the facts it publishes
/// are `FleetFacts`', fed by the daemon).
final class Session {
    let settings: MQTTSettings
    let link: MQTTLink
    let task: Task<Void, Never>
    let clientID: String
    let version: String
    let hostName: String
    var device: FleetDocuments.Device?
    /// The facts `mqtt.NAME` of `subscribe:`, and where their updates go (the daemon).
    var subscribed: SubscribedFacts
    let report: @Sendable (FactUpdate) -> Void
    let logger: Logger
    /// Where a command from `<prefix>/rule/<level>/set` goes (the daemon's core): pause (true) or
    /// resume the rule.
    let command: @Sendable (_ rule: String, _ paused: Bool) -> Void
    /// With `commands: true`: each rule that takes commands, by its topic level
    /// (`FleetDocuments.commandRules`); only these count, so a command names an existing rule.
    var commandRules: [String: String] = [:]
    /// The rules paused now, as the daemon last said.
    var paused: Set<String> = []
    /// The shortest time between two publications of the discovery config: Home Assistant's
    /// `online` is answered, however often it comes, at most this often (the last one always).
    static let discoveryInterval: Duration = .seconds(5)
    /// The longest command payload read: `ON` and `OFF` are all there is.
    static let commandLimit = 16

    init(
        settings: MQTTSettings, link: MQTTLink, task: Task<Void, Never>, clientID: String, version: String,
        hostName: String, subscribed: SubscribedFacts, report: @escaping @Sendable (FactUpdate) -> Void,
        logger: Logger, command: @escaping @Sendable (_ rule: String, _ paused: Bool) -> Void
    ) {
        self.subscribed = subscribed
        self.report = report
        self.logger = logger
        self.command = command
        self.settings = settings
        self.link = link
        self.task = task
        self.clientID = clientID
        self.version = version
        self.hostName = hostName
    }

    var prefix: String { settings.prefix(clientID: clientID) }

    func fired(_ firing: Firing, at time: String) {
        let document = FleetDocuments.event(
            rule: firing.rule, edge: firing.edge.rawValue, time: time, actions: firing.actions.map(\.kind))
        link.publish(topic: "\(prefix)/event", payload: document.compactBytes)
    }

    func rulesChanged(_ ruleSet: RuleSet, paused: Set<String>) {
        if settings.commands {
            let rules = FleetDocuments.commandRules(ruleSet.rules.map(\.name))
            commandRules = Dictionary(rules.map { ($0.level, $0.rule) }, uniquingKeysWith: { first, _ in first })
            let taking = Set(rules.map(\.rule))
            for name in ruleSet.rules.map(\.name) where !taking.contains(name) {
                logger.warning(
                    "mqtt: rule '\(name)' takes no commands: its topic level \(FleetDocuments.ruleLevel(name)) is "
                        + "another rule's too; rename one of them")
            }
            self.paused = paused
            for (level, rule) in commandRules { publishRuleState(level: level, paused: paused.contains(rule)) }
        }
        guard let discovery = settings.discovery else { return }
        let next = FleetDocuments.Device(
            clientID: clientID, name: discovery.name ?? hostName, version: version, prefix: prefix,
            discoveryPrefix: discovery.prefix, published: settings.published, rules: ruleSet.rules.map(\.name),
            places: ruleSet.places.map(\.name), commands: settings.commands)
        guard next != device else { return }
        let removed = device.map { FleetDocuments.removedComponents(from: $0, to: next) } ?? []
        device = next
        link.setRetained(
            topic: next.topic, payload: FleetDocuments.discovery(next, removed: removed).compactBytes,
            interval: Self.discoveryInterval)
    }

    /// The daemon paused or resumed rules: each switch whose rule changed shows it (retained, and
    /// again on every connection).
    func pausedChanged(_ names: Set<String>) {
        guard settings.commands else { return }
        let changed = paused.symmetricDifference(names)
        paused = names
        for (level, rule) in commandRules where changed.contains(rule) {
            publishRuleState(level: level, paused: names.contains(rule))
        }
    }

    /// `<prefix>/rule/<level>/state`: `ON` while the rule runs, `OFF` while it is paused.
    func publishRuleState(level: String, paused: Bool) {
        link.setRetained(
            topic: FleetDocuments.ruleStateTopic(prefix: prefix, level: level),
            payload: Array((paused ? FleetDocuments.paused : FleetDocuments.running).utf8))
    }

    /// A message on `<prefix>/rule/<level>/set`: `ON` resumes that rule and `OFF` pauses it. Any
    /// other payload, a level that names no rule, a retained message (a command is for now, not
    /// for every reconnect) is logged and ignored; nothing else is done with what the broker
    /// sent. Returns whether `topic` is a command topic at all.
    func commandMessage(topic: String, payload: [UInt8], retained: Bool) -> Bool {
        let head = "\(prefix)/rule/"
        guard settings.commands, topic.hasPrefix(head), topic.hasSuffix("/set") else { return false }
        let level = topic.dropFirst(head.count).dropLast("/set".count)
        guard !level.isEmpty, !level.contains("/") else { return false }
        // What the broker sent is shown only as far as a log line needs, escaped by the sink.
        let shownLevel = level.count > 64 ? level.prefix(64) + "…" : level
        guard let rule = commandRules[String(level)] else {
            logger.info("mqtt: a command for '\(shownLevel)', which names no rule of this daemon, is ignored")
            return true
        }
        guard !retained else {
            logger.info(
                "mqtt: a retained command for rule '\(rule)' is ignored: commands are not retained (publish "
                    + "without -r, and clear it with an empty retained message)")
            return true
        }
        switch payload.count <= Self.commandLimit ? String(decoding: payload, as: UTF8.self) : nil {
        case FleetDocuments.running?: command(rule, false)
        case FleetDocuments.paused?: command(rule, true)
        default:
            logger.info(
                "mqtt: a command of \(payload.count) bytes for rule '\(rule)' is ignored: only ON (run) and OFF "
                    + "(pause) are")
        }
        return true
    }

    func linkEvent(_ event: MQTTLink.Event) {
        if case .message(let topic, let payload, let retained) = event,
            commandMessage(topic: topic, payload: payload, retained: retained)
        {
            return
        }
        subscriptionEvent(event)
        guard case .message(let topic, let payload, _) = event else { return }
        if topic == "homeassistant/status", payload == Array("online".utf8), let device {
            // Home Assistant restarted: it forgets devices whose config it does not hear again. The
            // config and the state go again, each no more often than its interval allows.
            link.setRetained(
                topic: device.topic, payload: FleetDocuments.discovery(device).compactBytes,
                interval: Self.discoveryInterval)
            link.republish(topic: "\(prefix)/state")
        }
    }

    func stop() async {
        link.stop()
        await task.value
        if let update = subscribed.forgetAll() { report(update) }
    }
}
