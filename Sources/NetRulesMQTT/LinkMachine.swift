import NetRulesCore

/// Every decision of the fleet's MQTT link, as a value: events in, with the time, effects out.
///
/// `MQTTLink` performs what this returns (start an attempt on its thread, drop the connection,
/// begin a session, disconnect) and feeds back what happened; it decides nothing itself. Walked on
/// virtual time in `LinkMachineTests`, like `DaemonCore`.
///
/// The promise: every path ends in a bounded wait.
/// - A failed attempt, at any stage before the broker's CONNACK (nothing listens, a TLS failure, a
///   connection closed before the CONNACK, a CONNACK that refuses, no CONNACK within
///   ``Policy/handshakeLimit``), waits 1 s, then twice as long after each further failure, up to
///   60 s. Only a broker on this machine that is not there at all (nothing listens) is tried every
///   second however long it stays away: it is starting, and trying costs nothing.
/// - A lost connection is tried again after 1 s; one that had lasted less than
///   ``Policy/stableAfter`` counts as one more failure of the streak, so a broker that accepts and
///   drops at once backs off too.
/// - Without a route to the broker nothing is tried until one comes back; a network change (a
///   route back, connectivity online) starts a new streak and tries at once.
/// - A roam (the local address the connection was made from is gone, or the default route was
///   replaced) drops the connection at once and connects again from the new network.
/// - A QoS 1 message the broker has not acknowledged within ``Policy/acknowledgementLimit`` counts
///   as a lost connection (the message is resent on the next one).
///
/// Not thread-safe: confined to the link's loop task.
package struct LinkMachine: Sendable {
    /// The waits, as constants a test can shorten.
    package struct Policy: Sendable {
        package var firstRetry: Duration = .seconds(1)
        package var longestRetry: Duration = .seconds(60)
        /// The retry of a broker on this machine that nothing listens for.
        package var localRetry: Duration = .seconds(1)
        /// How long an attempt may take to open its connection (DNS, TCP, TLS) before it is given up.
        package var openLimit: Duration = .seconds(30)
        /// How long a CONNECT may wait for its CONNACK.
        package var handshakeLimit: Duration = .seconds(10)
        /// How long a QoS 1 message may wait for its PUBACK.
        package var acknowledgementLimit: Duration = .seconds(30)
        /// A connection that lasted this long ends a failure streak when it is lost.
        package var stableAfter: Duration = .seconds(10)

        package init() {}
    }

    /// Why an attempt failed: the retry policy differs.
    package enum Failure: Sendable, Equatable {
        /// Nothing answered there (connection refused, no such socket, no route, DNS). Each reason
        /// is a whole sentence that names the broker.
        case unreachable(String)
        /// Something answered, but not as a broker that takes us (TLS, closed before CONNACK, a
        /// refusing CONNACK, no CONNACK in time).
        case rejected(String)

        package var reason: String {
            switch self {
            case .unreachable(let reason), .rejected(let reason): reason
            }
        }
    }

    /// What happened, as the link saw it.
    package enum Event: Sendable, Equatable {
        /// The link starts (or the first connection is wanted).
        case start
        /// The attempt's TCP (and TLS) connection is up and CONNECT was sent, from `localAddress`
        /// (nil: unknown or a unix socket).
        case opened(localAddress: IPAddress?)
        /// The attempt failed before the broker could answer: before CONNECT could be sent, or in
        /// the TLS handshake that follows the TCP connection.
        case openFailed(Failure)
        /// CONNACK with success.
        case accepted
        /// CONNACK with a failure, in words.
        case refused(String)
        /// The connection ended, at any stage, not by our own choice; the reason in words.
        case closed(String)
        /// Whether a route to the broker exists.
        case route(available: Bool)
        /// The network changed in a way that may let a connection succeed now.
        case networkChanged
        /// The machine's local addresses now (the `ip` fact, without prefix lengths).
        case addresses([IPAddress])
        /// The default route was replaced (another gateway).
        case routeReplaced
        /// QoS 1 message `id` was handed to the connection.
        case sent(UInt64)
        /// Message `id` was acknowledged (or answered for good).
        case acknowledged(UInt64)
        /// Time passed: the deadline (`nextDeadline`) may be due.
        case tick
        /// `stop()`: say offline and end.
        case stop
    }

    /// What the link must do, in order.
    package enum Effect: Sendable, Equatable {
        /// Start one connection attempt (on a thread of its own: DNS, TCP and TLS block).
        case connect
        /// Close the connection now, without a goodbye: the next attempt starts from a new client.
        case drop
        /// CONNACK success: publish `online`, every retained document and what waits, subscribe.
        case beginSession
        /// Publish `offline`, DISCONNECT, and end.
        case disconnect
        /// A line for the log: `warning` when `important`, else `notice`.
        case log(String, important: Bool)
    }

    /// Where the link is.
    package enum Phase: Sendable, Equatable {
        /// Not started.
        case idle
        /// An attempt runs on its thread since `since`.
        case opening(since: Instant)
        /// CONNECT sent at `since`, no CONNACK yet.
        case handshaking(since: Instant)
        /// The broker accepted the connection at `since`.
        case connected(since: Instant)
        /// Waiting until `retryAt` after `tries` failures in a row; the last one's reason.
        case waiting(retryAt: Instant, after: String, tries: Int)
        /// No route to the broker: nothing is tried until one comes back.
        case noRoute
        /// Stopped; nothing more happens.
        case stopped
    }

    package let broker: String
    /// The client id the broker knows this link by, for the log.
    package let clientID: String
    /// A broker on loopback or a unix socket: no address or default route of the machine matters
    /// to its connection, and one that nothing listens for is tried every second.
    package let isLocal: Bool
    package let policy: Policy
    package private(set) var phase: Phase = .idle
    /// When `phase` last changed as `status` shows it.
    package private(set) var since: Instant = .zero
    /// Failures since the last connection that the broker accepted (and that lasted).
    package private(set) var tries = 0
    /// The reason of the last failure, until the broker accepts a connection.
    package private(set) var lastFailure: String?
    private var routeAvailable = true
    private var localAddress: IPAddress?
    /// QoS 1 messages handed to the connection and not acknowledged yet, with when.
    private var unacknowledged: [UInt64: Instant] = [:]
    /// The last failure logged, so the same one is not logged at every try.
    private var lastLogged: String?

    package init(broker: String, clientID: String = "", isLocal: Bool, policy: Policy = Policy()) {
        self.broker = broker
        self.clientID = clientID
        self.isLocal = isLocal
        self.policy = policy
    }

    /// The next time `tick` has something to do, or nil.
    package var nextDeadline: Instant? {
        switch phase {
        case .waiting(let at, _, _): at
        case .opening(let since): since + policy.openLimit
        case .handshaking(let since): since + policy.handshakeLimit
        case .connected:
            unacknowledged.values.min().map { $0 + policy.acknowledgementLimit }
        case .idle, .noRoute, .stopped: nil
        }
    }

    package var isConnected: Bool {
        if case .connected = phase { return true }
        return false
    }

    /// Takes one event at `now` and returns what to do.
    package mutating func handle(_ event: Event, at now: Instant) -> [Effect] {
        if phase == .stopped { return [] }
        switch event {
        case .start:
            guard phase == .idle else { return [] }
            return attempt(at: now)
        case .opened(let address):
            guard case .opening = phase else { return [] }
            localAddress = address
            move(to: .handshaking(since: now), at: now)
            return []
        case .openFailed(let failure):
            switch phase {
            case .opening: return fail(failure, at: now)
            case .handshaking: return [.drop] + fail(failure, at: now)
            case .idle, .connected, .waiting, .noRoute, .stopped: return []
            }
        case .accepted:
            guard case .handshaking = phase else { return [] }
            unacknowledged = [:]
            lastLogged = nil
            lastFailure = nil
            move(to: .connected(since: now), at: now)
            let who = clientID.isEmpty ? "" : " as \(clientID)"
            return [.beginSession, .log("mqtt: connected to \(broker)\(who)", important: false)]
        case .refused(let reason):
            guard case .handshaking = phase else { return [] }
            return [.drop] + fail(.rejected("the broker \(broker) refused the connection: \(reason)"), at: now)
        case .closed(let reason):
            switch phase {
            case .handshaking:
                return [.drop]
                    + fail(
                        .rejected("the broker \(broker) closed the connection before accepting it (\(reason))"),
                        at: now)
            case .connected(let connectedAt):
                return [.drop]
                    + lose("lost the connection to \(broker): \(reason)", connectedAt: connectedAt, at: now)
            case .idle, .opening, .waiting, .noRoute, .stopped:
                return []
            }
        case .route(let available):
            // Told for a broker on this machine too (its owner knows best whether it needs a
            // route: the fleet tells none for loopback and unix sockets).
            guard available != routeAvailable else { return [] }
            routeAvailable = available
            if !available {
                switch phase {
                case .waiting, .idle:
                    move(to: .noRoute, at: now)
                    return [.log("mqtt: no route to \(broker): waiting for the network", important: true)]
                case .opening, .handshaking, .connected, .noRoute, .stopped:
                    // A connection (or an attempt) in hand is kept until it fails: the broker may
                    // be on the local network still.
                    return []
                }
            }
            return networkChanged(at: now)
        case .networkChanged:
            return networkChanged(at: now)
        case .addresses(let addresses):
            guard !isLocal, let localAddress, !addresses.contains(localAddress) else { return [] }
            return roam("the address \(localAddress) is gone", at: now)
        case .routeReplaced:
            guard !isLocal else { return [] }
            return roam("the default route changed", at: now)
        case .sent(let id):
            if isConnected { unacknowledged[id] = now }
            return []
        case .acknowledged(let id):
            unacknowledged[id] = nil
            return []
        case .tick:
            return tick(at: now)
        case .stop:
            let wasConnected = isConnected
            move(to: .stopped, at: now)
            return wasConnected ? [.disconnect] : [.drop]
        }
    }

    private mutating func tick(at now: Instant) -> [Effect] {
        switch phase {
        case .waiting(let at, _, _) where now >= at:
            return attempt(at: now)
        case .opening(let since) where now >= since + policy.openLimit:
            let seconds = policy.openLimit.components.seconds
            return [.drop] + fail(.unreachable("cannot connect to \(broker): no answer within \(seconds) s"), at: now)
        case .handshaking(let since) where now >= since + policy.handshakeLimit:
            let seconds = policy.handshakeLimit.components.seconds
            return [.drop]
                + fail(.rejected("the broker \(broker) did not accept the connection within \(seconds) s"), at: now)
        case .connected(let connectedAt):
            guard let oldest = unacknowledged.values.min(), now >= oldest + policy.acknowledgementLimit else {
                return []
            }
            let seconds = policy.acknowledgementLimit.components.seconds
            return [.drop]
                + lose(
                    "lost the connection to \(broker): the broker did not acknowledge a message within \(seconds) s",
                    connectedAt: connectedAt,
                    at: now)
        case .idle, .opening, .waiting, .handshaking, .noRoute, .stopped:
            return []
        }
    }

    private mutating func attempt(at now: Instant) -> [Effect] {
        if !routeAvailable {
            move(to: .noRoute, at: now)
            return [.log("mqtt: no route to \(broker): waiting for the network", important: true)]
        }
        localAddress = nil
        phase = .opening(since: now)
        return [.connect]
    }

    private mutating func networkChanged(at now: Instant) -> [Effect] {
        switch phase {
        case .waiting, .noRoute:
            tries = 0
            return attempt(at: now)
        case .idle, .opening, .handshaking, .connected, .stopped:
            return []
        }
    }

    /// The connection in hand was made from a network the machine has left: a new one now.
    private mutating func roam(_ why: String, at now: Instant) -> [Effect] {
        switch phase {
        case .connected, .handshaking:
            unacknowledged = [:]
            tries = 0
            return [.drop, .log("mqtt: the network changed (\(why)): reconnecting to \(broker)", important: false)]
                + attempt(at: now)
        case .waiting:
            tries = 0
            return attempt(at: now)
        case .opening:
            // An attempt made through the network the machine left may hang until its limit.
            tries = 0
            return [.drop] + attempt(at: now)
        case .idle, .noRoute, .stopped:
            return []
        }
    }

    private mutating func lose(_ reason: String, connectedAt: Instant, at now: Instant) -> [Effect] {
        unacknowledged = [:]
        if now - connectedAt >= policy.stableAfter { tries = 0 }
        return fail(.rejected(reason), at: now)
    }

    private mutating func fail(_ failure: Failure, at now: Instant) -> [Effect] {
        tries += 1
        localAddress = nil
        lastFailure = failure.reason
        let delay = retryDelay(after: failure)
        move(to: .waiting(retryAt: now + delay, after: failure.reason, tries: tries), at: now)
        guard lastLogged != failure.reason else { return [] }
        lastLogged = failure.reason
        let retry = delay < .seconds(1) ? "retrying now" : "retrying in \(Self.seconds(delay))"
        return [.log("mqtt: \(failure.reason); \(retry)", important: true)]
    }

    private func retryDelay(after failure: Failure) -> Duration {
        if isLocal, case .unreachable = failure { return policy.localRetry }
        var delay = policy.firstRetry
        for _ in 1..<max(tries, 1) where delay < policy.longestRetry { delay = delay * 2 }
        return min(delay, policy.longestRetry)
    }

    private mutating func move(to next: Phase, at now: Instant) {
        let changed: Bool =
            switch (phase, next) {
            case (.waiting(_, let a, _), .waiting(_, let b, _)): a != b
            default: phase != next
            }
        phase = next
        if changed { since = now }
    }

    /// A duration in whole seconds for a person: `8 s`.
    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return "\(whole + (fraction > 0 ? 1 : 0)) s"
    }
}
