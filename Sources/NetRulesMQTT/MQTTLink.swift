internal import CMosquitto
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// One MQTT connection on libmosquitto, driven by `run()`'s task: in the daemon, on its event loop.
///
/// That task (`Loop`) owns the `struct mosquitto` and makes every libmosquitto call, callbacks
/// included; other threads only hand it work through `pending` and signal `wake`. It waits for the
/// client's socket and the wake event (`Readiness`) with the time to the next keepalive as the
/// deadline, so an idle, connected link wakes once per keepalive (libmosquitto's `loop_misc`
/// sends the PINGREQ then).
///
/// - Connecting is mosquitto_connect (blocking: DNS and TCP) on a short-lived thread of its own,
///   never on the loop; work handed over meanwhile waits in `pending`.
/// - After a refused or lost connection it tries again after 1 s, doubling to 60 s (a broker on
///   this machine: every second); at once when
///   `networkChanged()` says the network may now help; not at all while `setRoute(false)` says
///   there is no route to the broker.
/// - On each connection it publishes `<prefix>/availability` `online` (retained, the Will says
///   `offline`), then every retained document (`setRetained`) and subscribes to `subscriptions`.
/// - `stop()` publishes `offline`, disconnects, and ends the loop.
package final class MQTTLink: Sendable {
    /// What the link needs to connect.
    package struct Configuration: Sendable {
        package var broker: MQTTSettings.Broker
        package var clientID: String
        package var username: String?
        /// The password itself (read from the environment when the link is made); never logged.
        package var password: String?
        package var caFile: String?
        package var certFile: String?
        package var keyFile: String?
        package var insecure: Bool
        package var keepalive: Duration
        /// The topics' prefix: `<prefix>/availability` is the Will's topic.
        package var prefix: String
        /// Topic filters subscribed to on each connection.
        package var subscriptions: [String]
        /// Whether the link sets the Will and publishes `online`/`offline` on the availability
        /// topic; false for a connection beside the daemon's (`doctor`), which must not speak for it.
        package var announces = true

        package init(
            broker: MQTTSettings.Broker, clientID: String, username: String? = nil, password: String? = nil,
            caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, insecure: Bool = false,
            keepalive: Duration = .seconds(60), prefix: String, subscriptions: [String] = []
        ) {
            self.broker = broker
            self.clientID = clientID
            self.username = username
            self.password = password
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.insecure = insecure
            self.keepalive = keepalive
            self.prefix = prefix
            self.subscriptions = subscriptions
        }

        /// The topic of `online`/`offline`.
        package var availabilityTopic: String { "\(prefix)/availability" }
    }

    /// What the link reports, from its loop thread, in order.
    package enum Event: Sendable, Equatable {
        /// The broker accepted the connection (CONNACK success).
        case connected
        /// The connection failed, was refused or was lost; the reason in words.
        case disconnected(String)
        /// A message on a subscribed topic.
        case message(topic: String, payload: [UInt8], retained: Bool)
    }

    /// The connection as `status` shows it.
    package enum State: Sendable, Equatable {
        case connecting
        case connected
        case disconnected(reason: String)
    }

    /// How a message handed to `send` ended.
    package enum Acknowledgement: Sendable, Equatable {
        /// QoS 1: the broker acknowledged it (PUBACK with a success reason); QoS 0: it was handed
        /// to the connection.
        case delivered
        /// The broker or libmosquitto refused it for good (a PUBACK reason of 0x80 or more, a
        /// topic or payload MQTT does not allow), in words.
        case refused(String)
        /// Not connected, or the connection was lost before the broker acknowledged it: try again
        /// on the next connection.
        case notConnected
    }

    /// A message handed to `send`, waiting for the loop.
    struct Outgoing {
        var id: UInt64
        var topic: String
        var payload: [UInt8]
        var qos: Int32
        var retain: Bool
        var userProperties: [(String, String)]
    }

    /// Work handed to the loop by other threads.
    struct Pending {
        var stop = false
        var networkChanged = false
        var routeAvailable = true
        /// Retained documents by topic, with whether each still has to be sent.
        var retained: [String: (payload: [UInt8], dirty: Bool)] = [:]
        var retainedOrder: [String] = []
        /// Topics published at most once per `coalescing` (the state).
        var coalesced: Set<String> = []
        /// Messages that are not retained, in order; dropped while disconnected.
        var messages: [(topic: String, payload: [UInt8], qos: Int32)] = []
        /// Set by the loop: whether it is connected (CONNACK received).
        var connected = false
        /// Messages handed to `send`, in order, not yet given to libmosquitto.
        var outgoing: [Outgoing] = []
        /// Who waits for each message of `send`, by its id, until the loop answers.
        var waiters: [UInt64: CheckedContinuation<Acknowledgement, Never>] = [:]
        var nextID: UInt64 = 0
    }

    package let configuration: Configuration
    let logger: Logger
    let onEvent: @Sendable (Event) -> Void
    let wake: WakeEvent
    let pending = Mutex(Pending())
    let stateBox = Mutex<(State, ContinuousClock.Instant)>((.connecting, .now))
    /// Messages that are not retained wait at most this many while the loop is busy.
    static let messageQueueLimit = 1000
    /// The longest wait between two attempts to reach a broker on this machine (`isLocal`): a
    /// refused local connection costs nothing, and its return is noticed within this.
    package static let localRetry: Duration = .seconds(1)
    /// The largest packet the broker may send this client (CONNECT's Maximum Packet Size): a
    /// subscribed fact takes at most 1 KiB, Home Assistant's status a word.
    package static let maximumIncomingPacket: UInt32 = 64 * 1024
    /// The shortest time between two publications of a coalesced topic.
    package static let coalescing: Duration = .milliseconds(100)

    /// Loads libmosquitto and makes a link; `start()` runs it.
    /// - Throws: `MQTTError` when libmosquitto cannot be loaded, or `SystemCallError` for the
    ///   wake event.
    package init(
        configuration: Configuration, logger: Logger, onEvent: @escaping @Sendable (Event) -> Void
    ) throws {
        var message = [CChar](repeating: 0, count: 256)
        guard netrules_mosquitto_load(&message, message.count) == 0 else {
            throw MQTTError(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.configuration = configuration
        self.logger = logger
        self.onEvent = onEvent
        wake = try WakeEvent()
    }

    /// The connection's state and since when.
    package var state: (State, ContinuousClock.Instant) { stateBox.withLock { $0 } }

    /// Runs the loop until `stop()`; returns once it published `offline` and disconnected.
    package func run() async throws {
        await Loop(link: self).run()
        wake.close()
    }

    /// Publishes `payload` on `topic`, retained, now and after every reconnect; `coalesced`
    /// topics at most once per `coalescing`. Safe from any thread.
    package func setRetained(topic: String, payload: [UInt8], coalesced: Bool = false) {
        pending.withLock { p in
            if p.retained[topic] == nil { p.retainedOrder.append(topic) }
            p.retained[topic] = (payload, true)
            if coalesced { p.coalesced.insert(topic) }
        }
        wake.signal()
    }

    /// Publishes `payload` on `topic`, not retained, when connected; dropped otherwise. Safe from
    /// any thread.
    package func publish(topic: String, payload: [UInt8], qos: Int = 0) {
        let queued = pending.withLock { p in
            guard p.connected, p.messages.count < Self.messageQueueLimit else { return false }
            p.messages.append((topic, payload, Int32(qos)))
            return true
        }
        if queued { wake.signal() }
    }

    /// Whether the broker has accepted the connection (and it has not been lost since).
    package var isConnected: Bool { pending.withLock { $0.connected && !$0.stop } }

    /// Publishes one message and waits for the broker's answer: for QoS 1 its PUBACK, for QoS 0
    /// the hand-over to the connection. Not connected, it answers `notConnected` at once; a
    /// connection lost before the PUBACK answers `notConnected` too (the caller keeps the message
    /// and sends it again on the next connection: at least once). Each message goes out with
    /// `userProperties` (MQTT 5). Safe from any thread.
    package func send(
        topic: String, payload: [UInt8], qos: Int, retain: Bool, userProperties: [(String, String)] = []
    ) async -> Acknowledgement {
        await withCheckedContinuation { (continuation: CheckedContinuation<Acknowledgement, Never>) in
            let queued = pending.withLock { p -> Bool in
                guard p.connected, !p.stop else { return false }
                p.nextID += 1
                p.waiters[p.nextID] = continuation
                p.outgoing.append(
                    Outgoing(
                        id: p.nextID, topic: topic, payload: payload, qos: Int32(qos), retain: retain,
                        userProperties: userProperties))
                return true
            }
            if queued { wake.signal() } else { continuation.resume(returning: .notConnected) }
        }
    }

    /// Answers the waiters of `ids` (every waiter when nil) with `answer`.
    func answer(_ ids: [UInt64]?, with answer: Acknowledgement) {
        let waiting = pending.withLock { p -> [CheckedContinuation<Acknowledgement, Never>] in
            guard let ids else {
                defer {
                    p.waiters = [:]
                    p.outgoing = []
                }
                return Array(p.waiters.values)
            }
            return ids.compactMap { p.waiters.removeValue(forKey: $0) }
        }
        for waiter in waiting { waiter.resume(returning: answer) }
    }

    /// Says the network changed in a way that may let a connection succeed now (a default route
    /// came back, connectivity went online): a waiting reconnect is tried at once.
    package func networkChanged() {
        pending.withLock { $0.networkChanged = true }
        wake.signal()
    }

    /// Says whether there is a route to the broker; reconnects pause while there is none.
    package func setRoute(_ available: Bool) {
        pending.withLock { $0.routeAvailable = available }
        wake.signal()
    }

    /// Publishes `offline`, disconnects and ends `run()`. Safe from any thread.
    package func stop() {
        pending.withLock { $0.stop = true }
        wake.signal()
    }

    func setState(_ state: State) {
        stateBox.withLock { box in
            if box.0 != state { box = (state, .now) }
        }
    }
}

/// The link's own state and its steps, driven by `run()`'s task: on the daemon's loop, which
/// waits for the client's socket and the wake event (`Readiness`) with the time to the next
/// keepalive as the deadline; the blocking connect (DNS and TCP in libmosquitto) on a thread of
/// its own for as long as it takes. libmosquitto's callbacks reach it through their `userdata`.
///
/// `@unchecked Sendable`: confined to `run()`'s task, one step at a time; the connecting thread
/// runs while that task waits for it, so no two threads touch it (or the `struct mosquitto`) at once.
private final class Loop: @unchecked Sendable {
    let link: MQTTLink
    var handle: OpaquePointer?
    /// Whether the TCP connection is up (CONNECT sent); `connected` once the broker accepted it.
    var socketUp = false
    var connected = false
    var backoff: Duration = .seconds(1)
    var nextAttempt: ContinuousClock.Instant = .now
    var lastReported: String?
    var lastActivity: ContinuousClock.Instant = .now
    var lastPublished: [String: ContinuousClock.Instant] = [:]
    var events: [MQTTLink.Event] = []
    /// Set when the connection failed or was lost: the next attempt starts from a new client, so
    /// libmosquitto never resends on its own what `send`'s callers will send again themselves.
    var handleStale = false
    /// The QoS 1 messages of `send` given to libmosquitto, by message id, until their PUBACK.
    var inflight: [Int32: UInt64] = [:]

    init(link: MQTTLink) { self.link = link }

    var configuration: MQTTLink.Configuration { link.configuration }

    func run() async {
        defer {
            if let handle { netrules_mosquitto_destroy(handle) }
            handle = nil
            // Nothing will answer them any more: their messages stay with their callers.
            link.pending.withLock { $0.connected = false }
            inflight = [:]
            link.answer(nil, with: .notConnected)
        }
        while true {
            let (stop, networkChanged, route) = link.pending.withLock { p in
                defer { p.networkChanged = false }
                return (p.stop, p.networkChanged, p.routeAvailable)
            }
            if stop {
                if connected { goOffline() }
                return
            }
            if !socketUp {
                if networkChanged {
                    nextAttempt = .now
                    backoff = .seconds(1)
                }
                if !route {
                    report(.disconnected("no route to the broker: waiting for the network"))
                    await wait(deadline: nil)
                    continue
                }
                if ContinuousClock.now >= nextAttempt {
                    await connect()
                } else {
                    await wait(deadline: nextAttempt)
                }
                continue
            }
            if connected { flush() }
            await serviceSocket()
        }
    }

    /// One attempt, off the daemon's loop: mosquitto_connect resolves and connects blocking.
    func connect() async {
        do {
            try await DedicatedThread.spawnAndWait(name: "netrules-mqtt") { [self] in attempt() }
        } catch {
            failed("cannot start a thread to connect to \(configuration.broker): \(error)")
        }
    }

    // MARK: Connecting

    func makeHandle() -> OpaquePointer? {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        guard let h = netrules_mosquitto_new(configuration.clientID, true, userdata) else { return nil }
        netrules_mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V5))
        if let username = configuration.username {
            netrules_mosquitto_username_pw_set(h, username, configuration.password)
        }
        if configuration.announces {
            let offline = Array("offline".utf8)
            _ = offline.withUnsafeBytes { bytes in
                netrules_mosquitto_will_set_v5(
                    h, configuration.availabilityTopic, Int32(bytes.count), bytes.baseAddress, 1, true, nil)
            }
        }
        netrules_mosquitto_connect_v5_callback_set(h) { _, userdata, rc, _, _ in
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().connack(Int(rc))
        }
        netrules_mosquitto_disconnect_v5_callback_set(h) { _, userdata, rc, _ in
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().disconnected(Int(rc))
        }
        netrules_mosquitto_message_v5_callback_set(h) { _, userdata, message, _ in
            guard let message else { return }
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().received(message.pointee)
        }
        netrules_mosquitto_publish_v5_callback_set(h) { _, userdata, mid, reason, _ in
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().acknowledged(mid, reason: reason)
        }
        return h
    }

    /// TLS options; an error in words, or nil.
    func configureTLS(_ h: OpaquePointer) -> String? {
        guard configuration.broker.usesTLS else { return nil }
        if configuration.caFile == nil {
            netrules_mosquitto_int_option(h, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
        }
        let rc = netrules_mosquitto_tls_set(
            h, configuration.caFile, configuration.caFile == nil ? "/etc/ssl/certs" : nil, configuration.certFile,
            configuration.keyFile)
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            return "cannot use the TLS files (ca_file, cert_file, key_file): \(Self.describe(rc))"
        }
        netrules_mosquitto_tls_insecure_set(h, configuration.insecure)
        return nil
    }

    func attempt() {
        if handleStale, let stale = handle {
            netrules_mosquitto_destroy(stale)
            handle = nil
        }
        handleStale = false
        if handle == nil {
            handle = makeHandle()
            if let handle, let problem = configureTLS(handle) {
                failed(problem)
                return
            }
        }
        guard let handle else {
            failed("cannot make an MQTT client (out of memory)")
            return
        }
        link.setState(.connecting)
        let (host, port): (String, Int32) =
            switch configuration.broker {
            case .tcp(let host, let port, _): (host, Int32(port))
            case .unix(let path): (path, 0)
            }
        let keepalive = Int32(configuration.keepalive.components.seconds)
        // MQTT 5's Maximum Packet Size: the broker must drop, not send, a bigger message to this
        // client, so what any publisher on a subscribed topic sends cannot cost more memory here.
        var properties: OpaquePointer?
        defer { netrules_mosquitto_property_free_all(&properties) }
        netrules_mosquitto_property_add_int32(
            &properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), MQTTLink.maximumIncomingPacket)
        errno = 0
        let rc = netrules_mosquitto_connect_bind_v5(handle, host, port, keepalive, nil, properties)
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            socketUp = true
            lastActivity = .now
            return
        }
        failed(connectFailure(rc))
    }

    /// Why connecting failed, in words: a TLS failure says which trust failed and that there is
    /// no fallback.
    func connectFailure(_ rc: Int32) -> String {
        var reason = Self.describe(rc)
        if rc == MOSQ_ERR_ERRNO.rawValue, errno != 0 { reason = Errno(rawValue: errno).description }
        if rc == MOSQ_ERR_TLS.rawValue {
            let host: String =
                switch configuration.broker {
                case .tcp(let host, _, _): host
                case .unix(let path): path
                }
            reason =
                "the TLS handshake failed: the broker's certificate is not trusted by "
                + "\(configuration.caFile ?? "the system's CAs") or does not name \(host) "
                + "(no fallback to an unverified connection)"
        }
        return "cannot connect to \(configuration.broker): \(reason)"
    }

    func failed(_ reason: String) {
        socketUp = false
        connected = false
        handleStale = true
        link.pending.withLock { $0.connected = false }
        inflight = [:]
        link.answer(nil, with: .notConnected)
        report(.disconnected(reason))
        nextAttempt = .now + backoff
        backoff = min(backoff * 2, configuration.broker.isLocal ? MQTTLink.localRetry : .seconds(60))
    }

    /// Reports a state change once: the same failure again is not logged nor reported again.
    func report(_ event: MQTTLink.Event) {
        switch event {
        case .connected:
            lastReported = nil
            link.setState(.connected)
            link.logger.notice("mqtt: connected to \(configuration.broker) as \(configuration.clientID)")
        case .disconnected(let reason):
            guard lastReported != reason else { return }
            lastReported = reason
            link.setState(.disconnected(reason: reason))
            link.logger.warning("mqtt: \(reason)")
        case .message:
            break
        }
        link.onEvent(event)
    }

    // MARK: Callbacks (inside loop_read/loop_write/loop_misc)

    func connack(_ rc: Int) {
        guard rc == 0 else {
            let reason = String(cString: netrules_mosquitto_reason_string(Int32(rc)))
            failed("the broker \(configuration.broker) refused the connection: \(reason)")
            nextAttemptAfterRefusal()
            return
        }
        connected = true
        backoff = .seconds(1)
        link.pending.withLock { p in
            p.connected = true
            for topic in p.retainedOrder { p.retained[topic]?.dirty = true }
        }
        lastPublished = [:]
        if configuration.announces {
            publishNow(configuration.availabilityTopic, Array("online".utf8), qos: 1, retain: true)
        }
        for filter in configuration.subscriptions {
            netrules_mosquitto_subscribe_v5(handle, nil, filter, 0, 0, nil)
        }
        report(.connected)
    }

    /// A refused CONNECT leaves the socket open; close it so the next attempt starts clean.
    func nextAttemptAfterRefusal() {
        if let handle { netrules_mosquitto_disconnect_v5(handle, 0, nil) }
    }

    func disconnected(_ rc: Int) {
        let wasConnected = connected
        socketUp = false
        connected = false
        handleStale = true
        link.pending.withLock { p in
            p.connected = false
            p.messages.removeAll()
        }
        inflight = [:]
        link.answer(nil, with: .notConnected)
        // 0: our own mosquitto_disconnect (a clean stop, `goOffline`), which is no loss to report.
        if wasConnected, rc != Int(MOSQ_ERR_SUCCESS.rawValue) {
            let reason =
                rc == Int(MOSQ_ERR_KEEPALIVE.rawValue) ? "the broker stopped answering" : Self.describe(Int32(rc))
            failed("lost the connection to \(configuration.broker): \(reason)")
            // The first retry after a loss waits a second, as after a failed attempt.
        }
    }

    func received(_ message: mosquitto_message) {
        let topic = String(cString: message.topic)
        let count = Int(message.payloadlen)
        let payload: [UInt8] =
            count > 0 && message.payload != nil
            ? Array(UnsafeRawBufferPointer(start: message.payload, count: count)) : []
        link.onEvent(.message(topic: topic, payload: payload, retained: message.retain))
    }

    /// A PUBACK (or, for QoS 0, the hand-over) of message `mid`: answers its `send`.
    func acknowledged(_ mid: Int32, reason: Int32) {
        guard let id = inflight.removeValue(forKey: mid) else { return }
        if reason < 0x80 {
            link.answer([id], with: .delivered)
        } else {
            let words = String(cString: netrules_mosquitto_reason_string(reason))
            link.answer([id], with: .refused("the broker refused the message: \(words) (reason \(reason))"))
        }
    }

    // MARK: The connected loop

    func publishNow(_ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool) {
        _ = payload.withUnsafeBytes { bytes in
            netrules_mosquitto_publish_v5(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, retain, nil)
        }
        lastActivity = .now
    }

    /// The earliest time a coalesced topic that still waits may go out, or nil.
    var coalescedDue: ContinuousClock.Instant?

    func flush() {
        let now = ContinuousClock.now
        let (retained, messages, outgoing):
            ([(String, [UInt8])], [(topic: String, payload: [UInt8], qos: Int32)], [MQTTLink.Outgoing]) =
                link.pending.withLock { p in
                    var out: [(String, [UInt8])] = []
                    coalescedDue = nil
                    for topic in p.retainedOrder {
                        guard let entry = p.retained[topic], entry.dirty else { continue }
                        if p.coalesced.contains(topic), let last = lastPublished[topic],
                            now < last + MQTTLink.coalescing
                        {
                            let due = last + MQTTLink.coalescing
                            coalescedDue = min(coalescedDue ?? due, due)
                            continue
                        }
                        p.retained[topic]!.dirty = false
                        out.append((topic, entry.payload))
                    }
                    defer {
                        p.messages.removeAll()
                        p.outgoing.removeAll()
                    }
                    return (out, p.messages, p.outgoing)
                }
        for (topic, payload) in retained {
            publishNow(topic, payload, qos: 1, retain: true)
            lastPublished[topic] = now
        }
        for message in messages { publishNow(message.topic, message.payload, qos: message.qos, retain: false) }
        for message in outgoing { publish(message) }
    }

    /// Gives one message of `send` to libmosquitto, with its user properties; a QoS 1 message
    /// waits for its PUBACK in `inflight`.
    func publish(_ message: MQTTLink.Outgoing) {
        var properties: OpaquePointer?
        defer { netrules_mosquitto_property_free_all(&properties) }
        for (name, value) in message.userProperties {
            netrules_mosquitto_property_add_string_pair(
                &properties, Int32(MQTT_PROP_USER_PROPERTY.rawValue), name, value)
        }
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            netrules_mosquitto_publish_v5(
                handle, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, message.qos, message.retain,
                properties)
        }
        lastActivity = .now
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue:
            if message.qos == 0 { link.answer([message.id], with: .delivered) } else { inflight[mid] = message.id }
        case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_NOMEM.rawValue, MOSQ_ERR_ERRNO.rawValue:
            link.answer([message.id], with: .notConnected)
        default:
            link.answer([message.id], with: .refused("libmosquitto refused the message: \(Self.describe(rc))"))
        }
    }

    func serviceSocket() async {
        guard let handle else { return }
        let fd = netrules_mosquitto_socket(handle)
        guard fd >= 0 else {
            disconnected(Int(MOSQ_ERR_NO_CONN.rawValue))
            return
        }
        var events = Int16(POLLIN)
        if netrules_mosquitto_want_write(handle) { events |= Int16(POLLOUT) }
        var descriptors = [
            pollfd(fd: fd, events: events, revents: 0), pollfd(fd: link.wake.fd, events: Int16(POLLIN), revents: 0),
        ]
        // The next keepalive (libmosquitto counts whole seconds, so a moment after it), or a
        // coalesced publication that waits.
        var deadline = lastActivity + configuration.keepalive + .milliseconds(5)
        if let due = coalescedDue { deadline = min(deadline, due) }
        let outcome: WaitOutcome
        do {
            outcome = try await Readiness.wait(for: &descriptors, deadline: deadline, threadName: "netrules-mqtt")
        } catch is CancellationError {
            link.stop()
            return
        } catch {
            link.logger.error("mqtt: \(error)")
            // Dropping is right: a pause before looking again, so a failing poll is not a busy loop.
            try? await QuietClock().sleep(for: .milliseconds(100))
            return
        }
        if descriptors[1].revents != 0 { link.wake.reset() }
        let revents = descriptors[0].revents
        var rc = MOSQ_ERR_SUCCESS.rawValue
        if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            rc = netrules_mosquitto_loop_read(handle, 1)
            lastActivity = .now
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue, socketUp, revents & Int16(POLLOUT) != 0 {
            rc = netrules_mosquitto_loop_write(handle, 1)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue, socketUp {
            rc = netrules_mosquitto_loop_misc(handle)
            if outcome == .timedOut, coalescedDue == nil || ContinuousClock.now < coalescedDue!,
                !netrules_mosquitto_want_write(handle)
            {
                // Woken for a keepalive that libmosquitto did not consider due yet (its clock
                // counts whole seconds): look again in a second rather than spin.
                lastActivity = .now - configuration.keepalive + .seconds(1)
            } else if outcome == .timedOut {
                lastActivity = .now
            }
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue, socketUp {
            // libmosquitto called on_disconnect already for most errors; make sure the state moves.
            if connected {
                disconnected(Int(rc))
            } else {
                failed(connectFailure(rc))
            }
        }
    }

    /// Waits for the wake event (work handed over, a network change, `stop()`) or `deadline`.
    func wait(deadline: ContinuousClock.Instant?) async {
        do {
            if try await Readiness.wait(for: link.wake.fd, deadline: deadline, threadName: "netrules-mqtt") == .ready {
                link.wake.reset()
            }
        } catch is CancellationError {
            link.stop()
        } catch {
            link.logger.error("mqtt: \(error)")
            // Dropping is right: a pause before looking again, so a failing poll is not a busy loop.
            try? await QuietClock().sleep(for: .milliseconds(100))
        }
    }

    func goOffline() {
        guard let handle else { return }
        if configuration.announces {
            publishNow(configuration.availabilityTopic, Array("offline".utf8), qos: 1, retain: true)
        }
        // Let the PUBLISH (and, for QoS 1, its PUBACK) go through before DISCONNECT.
        let until = ContinuousClock.now + .seconds(2)
        while netrules_mosquitto_want_write(handle), ContinuousClock.now < until {
            if netrules_mosquitto_loop_write(handle, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        netrules_mosquitto_disconnect_v5(handle, 0, nil)
        _ = netrules_mosquitto_loop_write(handle, 1)
        link.setState(.disconnected(reason: "stopped"))
        link.logger.notice("mqtt: disconnected from \(configuration.broker)")
    }

    static func describe(_ rc: Int32) -> String {
        String(cString: netrules_mosquitto_strerror(rc))
    }
}
