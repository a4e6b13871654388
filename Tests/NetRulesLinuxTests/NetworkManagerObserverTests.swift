import Foundation
import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesLinux

/// The NetworkManager observer against python-dbusmock's NetworkManager template on a private bus
/// (issue 11): join, roam, disconnect, VPNs, connectivity, and NetworkManager leaving and coming
/// back, all event-driven.
@Suite(
    .timeLimit(.minutes(3)), .serialized,
    .enabled(if: NetworkManagerMock.isAvailable, "\(NetworkManagerMock.unavailableReason)"))
struct NetworkManagerObserverTests {
    /// The observer's facts as they arrive.
    final class Collected: Sendable {
        let facts = Mutex<[FactKey: FactState]>([:])
        let updates = Mutex(0)

        func wait(
            _ what: String, timeout: Duration = .seconds(30), until condition: ([FactKey: FactState]) -> Bool
        ) async throws {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if facts.withLock({ condition($0) }) { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("timed out waiting for \(what); facts: \(facts.withLock { $0 })")
            throw CancellationError()
        }

        subscript(key: FactKey) -> FactState { facts.withLock { $0[key] ?? .unknown } }
    }

    private func observe(_ mock: NetworkManagerMock, logger: Logger = .disabled) -> (Collected, Task<Void, Never>) {
        let collected = Collected()
        let observer = NetworkManagerObserver(
            loop: .testLoop, reportsWiFi: true, busAddress: mock.address, logger: logger)
        let task = Task {
            let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
            let reader = Task {
                for await update in stream {
                    collected.facts.withLock { facts in for (key, state) in update.changes { facts[key] = state } }
                    collected.updates.withLock { $0 += 1 }
                }
            }
            try? await observer.run(reporting: FactReporter(continuation))
            continuation.finish()
            await reader.value
        }
        return (collected, task)
    }

    /// Two jobs that each wait (up to 3 s) for the other: they finish at once only when two threads
    /// are free for them.
    final class Rendezvous: Sendable {
        let arrived = Atomic(0)

        func meet() {
            arrived.add(1, ordering: .sequentiallyConsistent)
            let end = ContinuousClock.now + .seconds(3)
            while arrived.load(ordering: .sequentiallyConsistent) < 2, ContinuousClock.now < end { usleep(1_000) }
        }
    }

    /// Issue 35: NetworkManager's D-Bus round trips have their own lane. A NetworkManager that has
    /// stopped answering (each call waits for its 5 s timeout) holds that lane's thread only: both
    /// threads of the shared pool stay free for the state, the journal, `write:` and the outbox.
    @Test func aHungNetworkManagerHoldsNoThreadOfTheSharedPool() async throws {
        let mock = try NetworkManagerMock()
        defer { mock.stop() }
        mock.pauseNetworkManager()
        let (facts, task) = observe(mock)
        defer { task.cancel() }
        // The observer's first report asks NetworkManager for its state and waits.
        try await Task.sleep(for: .milliseconds(500))
        #expect(facts.updates.withLock { $0 } == 0, "NetworkManager answered although it is stopped")
        let rendezvous = Rendezvous()
        let began = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 { group.addTask { await BlockingPool.shared.run { rendezvous.meet() } } }
        }
        let took = ContinuousClock.now - began
        #expect(took < .seconds(1), "two jobs on the shared pool met after \(took): a thread waited for NetworkManager")
        mock.resumeNetworkManager()
    }

    @Test func followsJoinRoamVPNConnectivityAndNetworkManagerComingAndGoing() async throws {
        let mock = try NetworkManagerMock()
        defer { mock.stop() }
        let log = CapturingLogSink()
        let (facts, task) = observe(mock, logger: log.logger())
        defer { task.cancel() }
        try await facts.wait("the first report") { $0[.ssid] == .absent && $0[.connection] == .absent }

        try mock.control("join", "ACME-Corp", "A4:2B:8C:92:47:3C", "80")
        // The mock sets the device's access point, then the primary connection: two signals, and the
        // observer may report the state between them. Wait for both.
        try await facts.wait("the join") {
            $0[.bssid] == .value(.string("a4:2b:8c:92:47:3c")) && $0[.connection] != .absent
        }
        #expect(facts[.ssid] == .value(.string("ACME-Corp")))
        #expect(facts[.connection] == .value(.string("ACME-Corp")))
        #expect(facts[.connectionType] == .value(.string("802-11-wireless")))
        #expect(facts[.interface] == .value(.string("wlan0")))
        #expect(facts[.signalQuality] == .value(.number(80)))
        #expect(facts[.frequency] == .value(.number(2437)))

        // Roaming changes the BSSID and nothing else.
        let before = facts.facts.withLock { $0 }
        try mock.control("roam", "a4:2b:8c:92:47:3d", "80")
        try await facts.wait("the roam") { $0[.bssid] == .value(.string("a4:2b:8c:92:47:3d")) }
        let after = facts.facts.withLock { $0 }
        #expect(after.filter { $0.key != .bssid && before[$0.key] != $0.value }.isEmpty, "\(after)")

        try mock.control("vpn-up", "Work")
        try await facts.wait("the VPN") { $0[.vpn] == .value(.list([.string("Work")])) }
        try mock.control("vpn-down", "Work")
        try await facts.wait("the VPN going down") { $0[.vpn] == .value(.list([])) }

        try mock.control("connectivity", "2")
        try await facts.wait("the portal verdict") { $0[.networkManagerConnectivity] == .value(.string("portal")) }

        try mock.control("disconnect")
        try await facts.wait("the disconnect") { $0[.ssid] == .absent && $0[.connection] == .absent }

        // NetworkManager leaves the bus: its facts are unknown, not absent; it comes back: facts again.
        mock.stopNetworkManager()
        try await facts.wait("NetworkManager leaving") { $0[.connection] == .unknown && $0[.ssid] == .unknown }
        try mock.startNetworkManager()
        try mock.control("join", "ACME-Corp", "A4:2B:8C:92:47:3C")
        try await facts.wait("NetworkManager back") { $0[.ssid] == .value(.string("ACME-Corp")) }
        let presence = log.records.filter { $0.message.contains("NetworkManager") }.map { "\($0.level) \($0.message)" }
        #expect(
            presence == [
                "info networkmanager: NetworkManager is on the bus",
                "notice networkmanager: NetworkManager left the bus; its facts are unknown until it returns",
                "notice networkmanager: NetworkManager is on the bus again",
            ])
    }

    @Test func withoutABusTheFactsStayUnknownAndCancellationEndsTheObserver() async throws {
        let observer = NetworkManagerObserver(
            loop: .testLoop, reportsWiFi: true, busAddress: "unix:path=/nonexistent/bus")
        let task = Task {
            let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
            try? await observer.run(reporting: FactReporter(continuation))
            continuation.finish()
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        #expect(await task.value == 0)
    }
}

/// The mapping from NetworkManager's state to facts, without a bus.
@Suite(.timeLimit(.minutes(1)))
struct NetworkManagerSnapshotTests {
    @Test func theFactsFollowThePrimaryConnectionAndTheAccessPoint() {
        var snapshot = NetworkManagerSnapshot()
        snapshot.connectivity = 4
        let wifi = NetworkManagerSnapshot.ActiveConnection(
            path: "/a/1", id: "Office", uuid: "u-1", type: "802-11-wireless", vpn: false, devices: ["/d/1"],
            specificObject: "/ap/1", isDefault: true)
        let vpn = NetworkManagerSnapshot.ActiveConnection(
            path: "/a/2", id: "Work VPN", uuid: "u-2", type: "vpn", vpn: true, devices: [], specificObject: nil,
            isDefault: false)
        snapshot.active = [wifi, vpn]
        snapshot.primary = wifi
        snapshot.wifiInterface = "wlp2s0"
        snapshot.accessPoint = NetworkManagerSnapshot.AccessPoint(
            ssid: [0x24, 0x28, 0xFF], hardwareAddress: "A4:2B:8C:92:47:3C", strength: 55, frequency: 5180)
        let facts = snapshot.facts(reportsWiFi: true)
        #expect(facts[.ssid] == .value(.text([0x24, 0x28, 0xFF])))
        #expect(facts[.bssid] == .value(.string("a4:2b:8c:92:47:3c")))
        #expect(facts[.vpn] == .value(.list([.string("Work VPN")])))
        #expect(facts[.networkManagerConnectivity] == .value(.string("full")))
        #expect(snapshot.facts(reportsWiFi: false)[.ssid] == nil, "nl80211 serves Wi-Fi facts where it can")
        #expect(NetworkManagerSnapshot.unknownFacts(reportsWiFi: true)[.ssid] == .unknown)
    }
}

/// Figures, not a test: the time from a mock `PropertiesChanged` to the fact update, over 200
/// changes. `scripts/bench-networkmanager` runs it (NETRULES_BENCH=1).
@Suite(.timeLimit(.minutes(5)))
struct NetworkManagerLatencyBenchmark {
    final class Arrivals: Sendable {
        let list = Mutex<[(Int64, UInt64)]>([])
    }

    static let enabled =
        NetworkManagerMock.isAvailable && ProcessInfo.processInfo.environment["NETRULES_BENCH"] == "1"

    @Test(.enabled(if: enabled, "set NETRULES_BENCH=1 (scripts/bench-networkmanager) to measure"))
    func propertiesChangedToFactUpdate() async throws {
        let mock = try NetworkManagerMock()
        defer { mock.stop() }
        try mock.control("join", "ACME-Corp", "A4:2B:8C:92:47:3C", "100")
        let arrivals = Arrivals()
        let observer = NetworkManagerObserver(loop: .testLoop, reportsWiFi: true, busAddress: mock.address)
        let task = Task {
            let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
            let reader = Task {
                for await update in stream {
                    if case .value(.number(let q))? = update.changes[.signalQuality] {
                        var now = timespec()
                        clock_gettime(CLOCK_MONOTONIC, &now)
                        let ns = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
                        arrivals.list.withLock { $0.append((Int64(q), ns)) }
                    }
                }
            }
            try? await observer.run(reporting: FactReporter(continuation))
            continuation.finish()
            await reader.value
        }
        defer { task.cancel() }
        try await Task.sleep(for: .milliseconds(500))
        arrivals.list.withLock { $0.removeAll() }
        let output = mock.directory + "/series"
        try mock.control("strength-series", "200", "0.02")
        try await Task.sleep(for: .milliseconds(300))
        let sent = (try String(contentsOfFile: mock.directory + "/control.log", encoding: .utf8))
            .split(separator: "\n").compactMap { line -> (UInt64, Int64)? in
                let fields = line.split(separator: " ")
                guard fields.count == 2, let t = UInt64(fields[0]), let v = Int64(fields[1]) else { return nil }
                return (t, v)
            }
        _ = output
        let received = arrivals.list.withLock { $0 }
        var latencies: [Double] = []
        var index = 0
        for (t0, value) in sent {
            while index < received.count, received[index].0 != value || received[index].1 < t0 { index += 1 }
            guard index < received.count else { break }
            latencies.append(Double(received[index].1 - t0) / 1e6)
            index += 1
        }
        latencies.sort()
        #expect(latencies.count >= 190, "matched \(latencies.count) of \(sent.count) changes")
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        print(
            "networkmanager: PropertiesChanged → fact update over \(latencies.count) changes: p50 \(p50) ms, p99 \(p99) ms"
        )
    }
}
