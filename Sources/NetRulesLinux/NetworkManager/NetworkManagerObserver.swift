@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Facts from NetworkManager over D-Bus (sd-bus, the system bus or `DBUS_SYSTEM_BUS_ADDRESS`):
/// the primary connection's name, UUID and type, the active VPNs, NetworkManager's connectivity
/// verdict and, where nl80211 cannot serve them, the Wi-Fi facts.
///
/// Event-driven: it reads NetworkManager's state at start and again after each signal
/// NetworkManager sends (`PropertiesChanged`, `StateChanged`, …), and follows the name's owner
/// (`NameOwnerChanged`): while NetworkManager is not on the bus its facts are unknown, and they
/// come back when it does, without a restart. No polling.
package struct NetworkManagerObserver: Observer {
    package let name = "networkmanager"
    /// Whether to report `ssid`, `bssid`, `frequency`, `interface` and `signal.quality` too.
    package var reportsWiFi: Bool
    /// The bus to use instead of the system bus (tests point it at a private one).
    package var busAddress: String?
    /// How severe a missing system bus is at the start: a warning while a rule reads one of this
    /// observer's facts, `info` when none does (its facts would only be unknown, and nothing asks).
    package var missingBusLevel: Logger.Level
    /// The event loop that watches the bus's descriptor.
    let loop: ThreadExecutor
    let logger: Logger

    /// Creates the observer.
    /// - Parameters:
    ///   - loop: the event loop that watches the bus's descriptor.
    ///   - reportsWiFi: whether to report the Wi-Fi facts too.
    ///   - busAddress: the bus to use instead of the system bus.
    ///   - missingBusLevel: the level of the line that says there is no system bus.
    ///   - logger: the parent logger; the observer logs as `netrules.observers.networkmanager`, a
    ///     missing bus at `missingBusLevel`.
    package init(
        loop: ThreadExecutor, reportsWiFi: Bool, busAddress: String? = nil, missingBusLevel: Logger.Level = .warning,
        logger: Logger = .disabled
    ) {
        self.loop = loop
        self.reportsWiFi = reportsWiFi
        self.busAddress = busAddress
        self.missingBusLevel = missingBusLevel
        self.logger = logger.child("netrules.observers.networkmanager")
    }

    /// The facts now, for `status` without a daemon: unknown when NetworkManager cannot be asked.
    package static func currentFacts(reportsWiFi: Bool) -> [FactKey: FactState] {
        // Status without a daemon: no bus, no NetworkManager or a failed read all mean its facts are
        // unknown, which the function returns (doctor says why).
        guard let bus = try? DBusConnection(), (try? NetworkManagerReader.isRunning(bus)) == true,
            let snapshot = try? NetworkManagerReader.read(bus)
        else { return NetworkManagerSnapshot.unknownFacts(reportsWiFi: reportsWiFi) }
        return snapshot.facts(reportsWiFi: reportsWiFi)
    }

    /// Whether NetworkManager is on the bus: nil when there is no bus to ask.
    package static func isOnBus(busAddress: String? = nil) -> Bool? {
        // Nil tells the caller (doctor) that there is no bus to ask, which is the answer, not an
        // error to pass on.
        guard let bus = try? DBusConnection(address: busAddress) else { return nil }
        // A bus that does not answer the NameHasOwner question is taken as NetworkManager not being
        // on it.
        return (try? NetworkManagerReader.isRunning(bus)) ?? false
    }

    /// Follows NetworkManager until cancelled. The task waits for the bus's descriptor
    /// (`Readiness` on `loop`, no thread of its own); connecting, reading the signals and
    /// asking NetworkManager for its state (blocking D-Bus round trips) run on the D-Bus lane
    /// (`DBusConnection.lane`).
    package func run(reporting updates: FactReporter) async throws {
        let updates = vpnNames.reporter(wrapping: updates, source: .networkManager)
        let (reportsWiFi, address, logger, missingBusLevel) = (
            self.reportsWiFi, self.busAddress, self.logger, self.missingBusLevel
        )
        let connected = await DBusConnection.lane.run { Result { try NetworkManagerFollower(address: address) } }
        let follower: NetworkManagerFollower
        switch connected {
        case .success(let made): follower = made
        case .failure(let error):
            logger.log(
                missingBusLevel, "networkmanager: no system bus (\(error)); its facts stay unknown")
            await Readiness.untilCancelled()
            return
        }
        defer { follower.close() }
        var report = await DBusConnection.lane.run {
            follower.report(reportsWiFi: reportsWiFi, logger: logger)
        }
        while true {
            if let update = report { updates.yield(update) }
            guard let (fd, events, deadline) = try follower.readiness() else { return }
            do {
                _ = try await Readiness.wait(on: loop, for: fd, events: events, deadline: deadline)
            } catch is CancellationError {
                return
            }
            report = try await DBusConnection.lane.run {
                Result { () throws(DBusConnection.Failure) -> FactUpdate? in
                    guard try follower.receiveSignals() else { return nil }
                    return follower.report(reportsWiFi: reportsWiFi, logger: logger)
                }
            }.get()
        }
    }
}

/// The observer's connection to the bus and what it last reported.
///
/// `@unchecked Sendable`: confined to the observer's task, which calls it one step at a time,
/// each on the D-Bus lane's thread or the loop; the lane's queue orders the hand-overs.
private final class NetworkManagerFollower: @unchecked Sendable {
    let bus: DBusConnection
    var reported: [FactKey: FactState] = [:]
    /// Whether NetworkManager was on the bus at the last report: its leaving and returning are
    /// said once each, at notice (they change what rules may read), its first state at info.
    var onBus: Bool?

    /// Connects and subscribes to NetworkManager's signals and to its name's owner (blocking).
    init(address: String?) throws {
        bus = try DBusConnection(address: address)
        do {
            try bus.addMatch("type='signal',sender='\(NetworkManagerReader.service)'")
            try bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(NetworkManagerReader.service)'")
        } catch {
            bus.close()
            throw error
        }
    }

    func close() { bus.close() }

    func readiness() throws(DBusConnection.Failure) -> (fd: CInt, events: Int16, deadline: ContinuousClock.Instant?)? {
        try bus.readiness()
    }

    /// Reads what arrived (without blocking); whether a signal was among it.
    func receiveSignals() throws(DBusConnection.Failure) -> Bool { !(try bus.receive()).isEmpty }

    /// Asks NetworkManager for its state (blocking) and returns what changed since the last
    /// report, or nil when nothing did.
    func report(reportsWiFi: Bool, logger: Logger) -> FactUpdate? {
        let facts: [FactKey: FactState]
        let snapshot =
            // A read that fails is taken as NetworkManager not being there: its facts become
            // unknown and the presence change below is logged; the next signal reads again.
            (try? NetworkManagerReader.isRunning(bus)) == true ? try? NetworkManagerReader.read(bus) : nil
        let present = snapshot != nil
        switch (onBus, present) {
        case (nil, true): logger.info("networkmanager: NetworkManager is on the bus")
        case (nil, false):
            logger.info("networkmanager: NetworkManager is not on the bus; its facts stay unknown until it is")
        case (true?, false):
            logger.notice("networkmanager: NetworkManager left the bus; its facts are unknown until it returns")
        case (false?, true): logger.notice("networkmanager: NetworkManager is on the bus again")
        default: break
        }
        onBus = present
        if let snapshot {
            facts = snapshot.facts(reportsWiFi: reportsWiFi)
        } else {
            // Only what this observer said before turns unknown: a fact it never reported may
            // come from elsewhere (an observer plugin), and unknown would erase it.
            facts = reported.mapValues { _ in .unknown }
        }
        let update = NetworkTable.changes(from: reported, to: facts)
        guard !update.isEmpty else { return nil }
        for (key, state) in update.changes { reported[key] = state }
        return update
    }
}
