internal import CMosquitto
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// The link's loop: it feeds `LinkMachine` what happened and performs what it says, driven by
/// `run()`'s task (on the daemon's loop). It waits for the client's socket and the wake event with
/// the earliest deadline; an attempt connects on a thread of its own while the loop goes on.
///
/// libmosquitto's callbacks (inside `loop_read`, `loop_write`, `loop_misc`) only record what they
/// saw; the loop hands it to the machine once libmosquitto returned, so nothing destroys a client
/// from inside one of its own calls.
///
/// `@unchecked Sendable`: confined to `run()`'s task, one step at a time. An attempt's thread
/// touches only the client it makes, until it hands it over through `pending`.
final class Loop: @unchecked Sendable {
    let link: MQTTLink
    var machine: LinkMachine
    /// The client of the connection in hand (from the attempt that opened it), or nil.
    var handle: OpaquePointer?
    /// The attempt that may still hand a client over; older ones close theirs.
    var attemptNumber: UInt64 = 0
    var lastActivity: ContinuousClock.Instant = .now
    var lastPublished: [String: ContinuousClock.Instant] = [:]
    /// What the callbacks saw during the last libmosquitto call, for the machine.
    var seen: [LinkMachine.Event] = []
    /// The QoS 1 messages given to libmosquitto, by its message id, until their PUBACK.
    var inflight: [Int32: Inflight] = [:]
    /// The events of `publish` given to this connection.
    var eventsSent: Set<UInt64> = []
    let origin = ContinuousClock.now

    enum Inflight {
        case send(UInt64)
        case event(UInt64)
    }

    init(link: MQTTLink) {
        self.link = link
        machine = LinkMachine(
            broker: link.configuration.broker.description, clientID: link.configuration.clientID,
            isLocal: link.configuration.broker.isLocal,
            policy: link.configuration.policy)
    }

    var configuration: MQTTLink.Configuration { link.configuration }

    /// The machine's time for `instant`.
    func instant(_ instant: ContinuousClock.Instant) -> Instant { Instant(instant - origin) }
    func continuous(_ instant: Instant) -> ContinuousClock.Instant { origin + instant.offset }

    func run() async {
        defer {
            closeClient()
            link.pending.withLock { p in
                p.connected = false
                // An attempt still on its way closes its own client.
                p.attempt = nil
            }
            // Nothing will answer them any more: their messages stay with their callers.
            link.answer(nil, with: .notConnected)
        }
        feed(.start)
        while machine.phase != .stopped {
            let (stop, network, outcome) = link.pending.withLock { p in
                defer {
                    p.network = []
                    p.attempt = nil
                }
                return (p.stop, p.network, p.attempt)
            }
            for event in network { feed(event) }
            if let outcome { opened(outcome) }
            if stop {
                feed(.stop)
                break
            }
            if let deadline = machine.nextDeadline, continuous(deadline) <= .now { feed(.tick) }
            if machine.phase == .stopped { break }
            if machine.isConnected { flush() }
            if handle != nil {
                await serviceSocket()
            } else {
                await wait(deadline: machine.nextDeadline.map(continuous))
            }
        }
    }

    // MARK: The machine

    /// Hands `event` to the machine at this moment and performs what it returns.
    func feed(_ event: LinkMachine.Event) {
        let before = machine.phase
        for effect in machine.handle(event, at: instant(.now)) { perform(effect) }
        publishState(leaving: before)
    }

    func perform(_ effect: LinkMachine.Effect) {
        switch effect {
        case .connect:
            startAttempt()
        case .drop:
            closeClient()
        case .beginSession:
            beginSession()
        case .disconnect:
            goOffline()
            closeClient()
        case .log(let line, let important):
            if important { link.logger.warning("\(line)") } else { link.logger.notice("\(line)") }
        }
    }

    /// What `status` shows, and the link's events for its owner, after the machine moved.
    func publishState(leaving before: LinkMachine.Phase) {
        let since = continuous(machine.since)
        let state: MQTTLink.State =
            switch machine.phase {
            case .idle, .opening, .handshaking: .connecting(after: machine.lastFailure, tries: machine.tries)
            case .connected: .connected
            case .waiting(let at, let reason, let tries): .retrying(at: continuous(at), after: reason, tries: tries)
            case .noRoute: .noRoute
            case .stopped: .stopped
            }
        link.stateBox.withLock { $0 = (state, since) }
        switch (before, machine.phase) {
        case (.connected, .connected), (.waiting, .waiting), (.noRoute, .noRoute):
            break
        case (_, .connected):
            link.onEvent(.connected)
        case (_, .waiting(_, let reason, _)):
            link.onEvent(.disconnected(reason))
        case (_, .noRoute):
            link.onEvent(.disconnected("no route to the broker: waiting for the network"))
        default:
            break
        }
    }

    // MARK: Attempts

    /// Makes a new client and connects it on a thread of its own; the outcome comes back through
    /// `pending.attempt`, unless a newer attempt (or the end) made this one stale by then.
    func startAttempt() {
        attemptNumber += 1
        let number = attemptNumber
        let link = self.link
        link.pending.withLock { $0.attemptNumber = number }
        do {
            try DedicatedThread.spawn(name: "netrules-mqtt") {
                let outcome = Attempt(configuration: link.configuration, loop: self).run()
                let taken = link.pending.withLock { p -> Bool in
                    guard p.attemptNumber == number else { return false }
                    p.attempt = outcome
                    return true
                }
                if !taken, case .opened(let client, _) = outcome { netrules_mosquitto_destroy(client.pointer) }
                link.wake.signal()
            }
        } catch {
            link.pending.withLock {
                $0.attempt = .failed(.rejected("cannot start a thread to connect to \(configuration.broker): \(error)"))
            }
            link.wake.signal()
        }
    }

    func opened(_ outcome: Attempt.Outcome) {
        switch outcome {
        case .opened(let client, let address):
            handle = client.pointer
            lastActivity = .now
            feed(.opened(localAddress: address))
        case .failed(let failure):
            feed(.openFailed(failure))
        }
    }

    /// Closes the client in hand, if any, and forgets what it had in flight: `send`'s callers
    /// keep their messages, `publish`'s events wait for the next connection.
    func closeClient() {
        attemptNumber += 1
        let number = attemptNumber
        link.pending.withLock { p in
            p.connected = false
            p.attemptNumber = number
        }
        if let handle { netrules_mosquitto_destroy(handle) }
        handle = nil
        inflight = [:]
        eventsSent = []
        seen = []
        link.answer(nil, with: .notConnected)
    }

    // MARK: Callbacks (inside loop_read/loop_write/loop_misc)

    func connack(_ rc: Int) {
        if rc == 0 {
            seen.append(.accepted)
        } else {
            seen.append(.refused(String(cString: netrules_mosquitto_reason_string(Int32(rc)))))
        }
    }

    func disconnected(_ rc: Int) {
        // 0: our own mosquitto_disconnect (a clean stop, `goOffline`), which is no loss.
        guard rc != Int(MOSQ_ERR_SUCCESS.rawValue) else { return }
        seen.append(ended(Int32(rc)))
    }

    func received(_ message: mosquitto_message) {
        let topic = String(cString: message.topic)
        let count = Int(message.payloadlen)
        let payload: [UInt8] =
            count > 0 && message.payload != nil
            ? Array(UnsafeRawBufferPointer(start: message.payload, count: count)) : []
        link.onEvent(.message(topic: topic, payload: payload, retained: message.retain))
    }

    /// A PUBACK (or, for QoS 0, the hand-over) of message `mid`.
    func acknowledged(_ mid: Int32, reason: Int32) {
        guard let entry = inflight.removeValue(forKey: mid) else { return }
        switch entry {
        case .send(let id):
            seen.append(.acknowledged(id))
            if reason < 0x80 {
                link.answer([id], with: .delivered)
            } else {
                let words = String(cString: netrules_mosquitto_reason_string(reason))
                link.answer([id], with: .refused("the broker refused the message: \(words) (reason \(reason))"))
            }
        case .event(let id):
            // Refused or not, it is answered: resending a refused event would be refused again.
            seen.append(.acknowledged(id | Self.eventBit))
            link.pending.withLock { p in p.events.removeAll { $0.id == id } }
        }
    }

    /// Event ids and `send`'s ids share the machine's acknowledgement table: events carry this bit.
    static let eventBit: UInt64 = 1 << 63

    // MARK: The connected loop

    func beginSession() {
        link.pending.withLock { p in
            p.connected = true
            for topic in p.retainedOrder { p.retained[topic]?.dirty = true }
        }
        lastPublished = [:]
        eventsSent = []
        if configuration.announces {
            publishNow(configuration.availabilityTopic, Array("online".utf8), qos: 1, retain: true)
        }
        for filter in configuration.subscriptions {
            netrules_mosquitto_subscribe_v5(handle, nil, filter, 0, 0, nil)
        }
    }

    func publishNow(_ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool) {
        _ = payload.withUnsafeBytes { bytes in
            netrules_mosquitto_publish_v5(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, retain, nil)
        }
        lastActivity = .now
    }

    /// The earliest time a retained document that waits for its interval may go out, or nil;
    /// set by `flush` on each pass while connected, nil otherwise.
    var retainedDue: ContinuousClock.Instant?

    func flush() {
        let now = ContinuousClock.now
        var due: ContinuousClock.Instant?
        let (retained, events, outgoing, dropped) = link.pending.withLock {
            p -> ([(String, @Sendable () -> [UInt8])], [MQTTLink.QueuedEvent], [MQTTLink.Outgoing], Int) in
            var out: [(String, @Sendable () -> [UInt8])] = []
            for topic in p.retainedOrder {
                guard let entry = p.retained[topic], entry.dirty else { continue }
                if let last = lastPublished[topic], now < last + entry.interval {
                    due = min(due ?? last + entry.interval, last + entry.interval)
                    continue
                }
                p.retained[topic]!.dirty = false
                out.append((topic, entry.payload))
            }
            let events = p.events.filter { !eventsSent.contains($0.id) }
            defer {
                p.outgoing.removeAll()
                p.droppedEvents = 0
            }
            return (out, events, p.outgoing, p.droppedEvents)
        }
        retainedDue = due
        if dropped > 0 {
            link.logger.warning(
                "mqtt: \(dropped) events were dropped while the broker was away: at most \(MQTTLink.eventLimit) wait")
        }
        for (topic, payload) in retained {
            publishNow(topic, payload(), qos: 1, retain: true)
            lastPublished[topic] = now
        }
        for event in events { publishEvent(event) }
        for message in outgoing { publish(message) }
        process()
    }

    func publishEvent(_ event: MQTTLink.QueuedEvent) {
        var mid: Int32 = 0
        let rc = event.payload.withUnsafeBytes { bytes in
            netrules_mosquitto_publish_v5(
                handle, &mid, event.topic, Int32(bytes.count), bytes.baseAddress, 1, false, nil)
        }
        lastActivity = .now
        eventsSent.insert(event.id)
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            inflight[mid] = .event(event.id)
            seen.append(.sent(event.id | Self.eventBit))
        }
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
            if message.qos == 0 {
                link.answer([message.id], with: .delivered)
            } else {
                inflight[mid] = .send(message.id)
                seen.append(.sent(message.id))
            }
        case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_NOMEM.rawValue, MOSQ_ERR_ERRNO.rawValue:
            link.answer([message.id], with: .notConnected)
        default:
            link.answer([message.id], with: .refused("libmosquitto refused the message: \(Self.describe(rc))"))
        }
    }

    /// Hands what the callbacks saw to the machine, in order.
    func process() {
        while !seen.isEmpty {
            let next = seen.removeFirst()
            feed(next)
        }
    }

    /// One wait on the client's socket and the wake event, then what is ready: read, write, and
    /// libmosquitto's keepalive.
    func serviceSocket() async {
        guard let handle else { return }
        let fd = netrules_mosquitto_socket(handle)
        guard fd >= 0 else {
            feed(.closed("the connection is closed"))
            return
        }
        var events = Int16(POLLIN)
        if netrules_mosquitto_want_write(handle) { events |= Int16(POLLOUT) }
        var descriptors = [
            pollfd(fd: fd, events: events, revents: 0), pollfd(fd: link.wake.fd, events: Int16(POLLIN), revents: 0),
        ]
        // The next keepalive (libmosquitto counts whole seconds, so a moment after it), the
        // machine's deadline, or a retained document that waits for its interval: each computed
        // anew on every pass, so none is ever left in the past.
        var deadline = lastActivity + configuration.keepalive + .milliseconds(5)
        if let due = machine.nextDeadline.map(continuous) { deadline = min(deadline, due) }
        if machine.isConnected, let due = retainedDue { deadline = min(deadline, due) }
        let outcome: WaitOutcome
        do {
            outcome = try await Readiness.wait(on: link.loop, for: &descriptors, deadline: deadline)
        } catch is CancellationError {
            link.stop()
            return
        } catch {
            await pauseAfter(error)
            return
        }
        // The loop reports the first ready descriptor only: ask the kernel for both.
        descriptors[0].revents = 0
        descriptors[1].revents = 0
        _ = descriptors.withUnsafeMutableBufferPointer { sys_poll($0.baseAddress!, 2, 0) }
        if descriptors[1].revents != 0 { link.wake.reset() }
        let revents = descriptors[0].revents
        var rc = MOSQ_ERR_SUCCESS.rawValue
        if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            rc = netrules_mosquitto_loop_read(handle, 1)
            lastActivity = .now
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue, revents & Int16(POLLOUT) != 0 {
            rc = netrules_mosquitto_loop_write(handle, 1)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            rc = netrules_mosquitto_loop_misc(handle)
            if outcome == .timedOut, ContinuousClock.now >= lastActivity + configuration.keepalive,
                !netrules_mosquitto_want_write(handle)
            {
                // Woken for a keepalive that libmosquitto did not consider due yet (its clock
                // counts whole seconds): look again in a second rather than spin.
                lastActivity = .now - configuration.keepalive + .seconds(1)
            }
        }
        process()
        if rc != MOSQ_ERR_SUCCESS.rawValue, self.handle == handle {
            // libmosquitto called on_disconnect already for most errors; make sure the machine hears it.
            feed(ended(rc))
        }
    }

    /// Waits for the wake event (work handed over, a network change, an attempt's outcome,
    /// `stop()`) or `deadline`.
    func wait(deadline: ContinuousClock.Instant?) async {
        do {
            if try await Readiness.wait(on: link.loop, for: link.wake.fd, deadline: deadline) == .ready {
                link.wake.reset()
            }
        } catch is CancellationError {
            link.stop()
        } catch {
            await pauseAfter(error)
        }
    }

    /// A wait that failed (poll itself): said, then a pause, so a failing poll is not a busy loop.
    func pauseAfter(_ error: any Error) async {
        link.logger.error("mqtt: \(error)")
        do {
            try await QuietClock(loop: link.loop).sleep(for: .milliseconds(100))
        } catch {
            link.stop()  // cancelled: the daemon is stopping
        }
    }

    func goOffline() {
        guard let handle else { return }
        if configuration.announces {
            publishNow(configuration.availabilityTopic, Array("offline".utf8), qos: 1, retain: true)
        }
        // Let the PUBLISH (and, for QoS 1, its PUBACK) go through before DISCONNECT.
        let until = ContinuousClock.now + .milliseconds(500)
        while netrules_mosquitto_want_write(handle), ContinuousClock.now < until {
            if netrules_mosquitto_loop_write(handle, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        netrules_mosquitto_disconnect_v5(handle, 0, nil)
        _ = netrules_mosquitto_loop_write(handle, 1)
        link.logger.notice("mqtt: disconnected from \(configuration.broker)")
    }

    /// The machine's event for a connection that ended with `rc`: a TLS failure (libmosquitto
    /// finishes the handshake in its first reads) says which trust failed.
    func ended(_ rc: Int32) -> LinkMachine.Event {
        if rc == MOSQ_ERR_TLS.rawValue, !machine.isConnected {
            return .openFailed(Attempt(configuration: configuration, loop: self).failure(rc, errno: 0))
        }
        return .closed(Self.lossReason(rc))
    }

    /// Why a connection ended, in words.
    static func lossReason(_ rc: Int32) -> String {
        rc == MOSQ_ERR_KEEPALIVE.rawValue ? "the broker stopped answering" : describe(rc)
    }

    static func describe(_ rc: Int32) -> String {
        String(cString: netrules_mosquitto_strerror(rc))
    }
}
