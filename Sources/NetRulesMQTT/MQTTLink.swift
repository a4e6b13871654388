internal import CMosquitto
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// One MQTT connection on libmosquitto, driven by `run()`'s task: in the daemon, on its event loop.
///
/// Its decisions (when to connect, what a failure costs, when to give a connection up) are
/// `LinkMachine`'s; this class performs them. `run()`'s task (`Loop`) owns the `struct mosquitto`
/// of the connection in hand and makes every libmosquitto call on it, callbacks included; other
/// threads only hand it work through `pending` and signal `wake`. It waits for the client's socket
/// and the wake event (`Readiness`) with the earliest of the machine's deadline, the next
/// keepalive and a publication that waits as the deadline, so an idle, connected link wakes once
/// per keepalive (libmosquitto's `loop_misc` sends the PINGREQ then).
///
/// - Each attempt is a new client, made and connected (DNS, TCP, TLS: blocking) on a short-lived
///   thread of its own, never on the loop; the loop goes on meanwhile, and an attempt given up
///   (too slow, or `stop()`) is closed by its thread when it ends.
/// - On each connection it publishes `<prefix>/availability` `online` (retained, the Will says
///   `offline`), then every retained document (`setRetained`), the events that wait (`publish`)
///   and subscribes to `subscriptions`.
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
        /// The link's waits (tests shorten them).
        package var policy = LinkMachine.Policy()

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

    /// What the link reports, from its loop, in order.
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
        /// An attempt runs; `tries` failed before it (the last for `after`).
        case connecting(after: String?, tries: Int)
        case connected
        /// The next attempt is due at `at`, after `tries` failures in a row, the last for `after`.
        case retrying(at: ContinuousClock.Instant, after: String, tries: Int)
        /// No route to the broker: nothing is tried until one comes back.
        case noRoute
        case stopped
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

    /// A retained document: what to publish, how often at most, and whether it still has to go.
    struct Retained {
        var payload: @Sendable () -> [UInt8]
        var interval: Duration
        var dirty: Bool
    }

    /// A message of `publish`, kept until the broker acknowledged it.
    struct QueuedEvent {
        var id: UInt64
        var topic: String
        var payload: [UInt8]
    }

    /// Work handed to the loop by other threads.
    struct Pending {
        var stop = false
        /// What other threads said of the network, in order, for the machine.
        var network: [LinkMachine.Event] = []
        /// Retained documents by topic, in the order they were first set.
        var retained: [String: Retained] = [:]
        var retainedOrder: [String] = []
        /// The messages of `publish`, oldest first, until acknowledged (at most `eventLimit`).
        var events: [QueuedEvent] = []
        /// Events dropped since the last log line about it (the oldest go first).
        var droppedEvents = 0
        var nextEventID: UInt64 = 0
        /// Set by the loop: whether it is connected (CONNACK received).
        var connected = false
        /// Messages handed to `send`, in order, not yet given to libmosquitto.
        var outgoing: [Outgoing] = []
        /// Who waits for each message of `send`, by its id, until the loop answers.
        var waiters: [UInt64: CheckedContinuation<Acknowledgement, Never>] = [:]
        var nextID: UInt64 = 0
        /// An attempt's outcome, handed over by its thread.
        var attempt: Attempt.Outcome?
        /// The attempt whose outcome the loop still wants; an older one closes its own client.
        var attemptNumber: UInt64 = 0
    }

    package let configuration: Configuration
    let logger: Logger
    let onEvent: @Sendable (Event) -> Void
    /// The event loop that waits for the broker's socket and the link's deadlines.
    let loop: ThreadExecutor
    let wake: WakeEvent
    let pending = Mutex(Pending())
    let stateBox = Mutex<(State, ContinuousClock.Instant)>((.connecting(after: nil, tries: 0), .now))
    /// Events of `publish` kept while the link is down; the oldest are dropped past this (logged).
    package static let eventLimit = 100
    /// The largest packet the broker may send this client (CONNECT's Maximum Packet Size). A
    /// subscribed fact keeps at most 1 KiB; a message up to this size still arrives, so the fact
    /// becomes unknown and the log says so, and a bigger one is dropped by the broker before it
    /// costs memory here (then nothing can tell the daemon it was sent).
    package static let maximumIncomingPacket: UInt32 = 1 << 20
    /// The shortest time between two publications of the state.
    package static let coalescing: Duration = .milliseconds(100)

    /// Loads libmosquitto and makes a link; `run()` runs it, waiting on `loop`.
    /// - Throws: `MQTTError` when libmosquitto cannot be loaded, or `SystemCallError` for the
    ///   wake event.
    package init(
        configuration: Configuration, loop: ThreadExecutor, logger: Logger,
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws {
        var message = [CChar](repeating: 0, count: 256)
        guard netrules_mosquitto_load(&message, message.count) == 0 else {
            throw MQTTError(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.configuration = configuration
        self.loop = loop
        self.logger = logger
        self.onEvent = onEvent
        wake = try WakeEvent()
    }

    /// The connection's state and since when it is so.
    package var state: (State, ContinuousClock.Instant) { stateBox.withLock { $0 } }

    /// Runs the loop until `stop()`; returns once it published `offline` and disconnected.
    package func run() async throws {
        await Loop(link: self).run()
        wake.close()
    }

    /// Publishes `payload` on `topic`, retained, now and after every reconnect, at most once per
    /// `interval` (the newest payload when it is due). Safe from any thread.
    package func setRetained(topic: String, payload: [UInt8], interval: Duration = .zero) {
        setRetained(topic: topic, interval: interval) { payload }
    }

    /// `setRetained(topic:payload:interval:)` with the payload made when it goes out: a document
    /// that changes often is rendered once per publication, not once per change.
    package func setRetained(topic: String, interval: Duration, payload: @escaping @Sendable () -> [UInt8]) {
        let signal = pending.withLock { p -> Bool in
            if p.retained[topic] == nil { p.retainedOrder.append(topic) }
            let waiting = p.retained[topic]?.dirty ?? false
            p.retained[topic] = Retained(payload: payload, interval: interval, dirty: true)
            // One that waits already is taken when due: no need to wake the loop again.
            return !waiting
        }
        if signal { wake.signal() }
    }

    /// Publishes the retained document of `topic` again (when its interval allows); nothing
    /// when there is none.
    package func republish(topic: String) {
        let signal = pending.withLock { p -> Bool in
            guard let entry = p.retained[topic], !entry.dirty else { return false }
            p.retained[topic]!.dirty = true
            // One that waits already is taken when due: no need to wake the loop again.
            return true
        }
        if signal { wake.signal() }
    }

    /// Publishes `payload` on `topic` (QoS 1, not retained) once connected, and again on the next
    /// connection until the broker acknowledged it: a message made while the link is down or being
    /// replaced goes out after the reconnect, in order. At most `eventLimit` wait; past that the
    /// oldest is dropped, and the log says how many. Safe from any thread.
    package func publish(topic: String, payload: [UInt8]) {
        pending.withLock { p in
            p.nextEventID += 1
            p.events.append(QueuedEvent(id: p.nextEventID, topic: topic, payload: payload))
            if p.events.count > Self.eventLimit {
                p.events.removeFirst(p.events.count - Self.eventLimit)
                p.droppedEvents += 1
            }
        }
        wake.signal()
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
    package func networkChanged() { tell(.networkChanged) }

    /// Says whether there is a route to the broker; reconnects pause while there is none.
    package func setRoute(_ available: Bool) { tell(.route(available: available)) }

    /// Says which addresses the machine has now: a connection made from one that is gone is
    /// replaced at once.
    package func addressesChanged(_ addresses: [IPAddress]) { tell(.addresses(addresses)) }

    /// Says the default route was replaced: the connection is replaced at once.
    package func routeReplaced() { tell(.routeReplaced) }

    private func tell(_ event: LinkMachine.Event) {
        pending.withLock { $0.network.append(event) }
        wake.signal()
    }

    /// Publishes `offline`, disconnects and ends `run()`. Safe from any thread.
    package func stop() {
        pending.withLock { $0.stop = true }
        wake.signal()
    }
}
