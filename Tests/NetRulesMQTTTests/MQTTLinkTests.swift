import Foundation
import NetRulesCore
import NetRulesMQTT
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

/// The MQTT link against a real mosquitto started by each test: availability, the retained
/// state, events, passwords, the clean stop and reconnecting after the broker returns.
@Suite(.timeLimit(.minutes(2)), .serialized)
struct MQTTLinkTests {
    static let skipReason: Comment = "SKIPPED: mosquitto is not installed (apt-get install mosquitto mosquitto-clients)"

    /// A link and the events it reported, awaited by the test.
    final class Harness: Sendable {
        let link: MQTTLink
        let events: AsyncStream<MQTTLink.Event>
        let task: Task<Void, Never>
        let logs = CapturingLogSink()

        init(_ configuration: MQTTLink.Configuration) throws {
            let (events, continuation) = AsyncStream.makeStream(of: MQTTLink.Event.self)
            self.events = events
            let link = try MQTTLink(configuration: configuration, loop: .testLoop, logger: logs.logger()) {
                continuation.yield($0)
            }
            self.link = link
            task = Task { try? await link.run() }
        }

        /// Waits for the first event that `matches` (a failure guard of `seconds`).
        func next(within seconds: Double = 10, _ matches: @escaping @Sendable (MQTTLink.Event) -> Bool) async throws
            -> MQTTLink.Event
        {
            let events = self.events
            return try await withGuard(seconds: seconds, "an MQTT event") {
                for await event in events where matches(event) { return event }
                throw TestBrokerError("the link's events ended")
            }
        }

        func connected(within seconds: Double = 10) async throws {
            _ = try await next(within: seconds) { $0 == .connected }
        }

        func stop() async {
            link.stop()
            await task.value
        }
    }

    static func configuration(_ broker: TestBroker, id: String, prefix: String) -> MQTTLink.Configuration {
        let settingsBroker: MQTTSettings.Broker =
            broker.socketPath.map { .unix(path: $0) } ?? .tcp(host: "127.0.0.1", port: broker.port, tls: false)
        return MQTTLink.Configuration(
            broker: settingsBroker, clientID: id, keepalive: .seconds(15), prefix: prefix)
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func connectingPublishesOnlineAndTheRetainedState() async throws {
        let broker = try await TestBroker()
        defer { broker.remove() }
        let harness = try Harness(Self.configuration(broker, id: "laptop-1", prefix: "netrules/laptop-1"))
        harness.link.setRetained(topic: "netrules/laptop-1/state", payload: Array(#"{"ssid":"Home"}"#.utf8))
        try await harness.connected()
        #expect(harness.link.state.0 == .connected)
        try await withGuard("the retained state") {
            while try await broker.retained("netrules/laptop-1/#").count < 2 {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(
            try await broker.retained("netrules/laptop-1/#") == [
                "netrules/laptop-1/availability online", #"netrules/laptop-1/state {"ssid":"Home"}"#,
            ])
        #expect(harness.logs.messages.contains("mqtt: connected to \(broker.url) as laptop-1"))
        await harness.stop()
        // A clean stop says offline, retained.
        #expect(
            try await broker.retained("netrules/laptop-1/availability") == ["netrules/laptop-1/availability offline"])
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func eventsAreNotRetainedAndStateChangesCoalesce() async throws {
        let broker = try await TestBroker(unixSocket: true)
        defer { broker.remove() }
        let harness = try Harness(Self.configuration(broker, id: "laptop-2", prefix: "p2"))
        try await harness.connected()
        let events = try await broker.subscribe("p2/event", count: 1)
        harness.link.publish(topic: "p2/event", payload: Array(#"{"event_type":"office"}"#.utf8))
        #expect(try await events.wait() == [#"p2/event 0 {"event_type":"office"}"#])
        #expect(try await broker.retained("p2/event").isEmpty)

        // Five changes within a few milliseconds: the first goes out at once, the last within
        // 100 ms after it, and nothing in between.
        let states = try await broker.subscribe("p2/state", count: 3, seconds: 2)
        for n in 1...5 {
            harness.link.setRetained(topic: "p2/state", payload: Array("\(n)".utf8), interval: MQTTLink.coalescing)
        }
        let lines = try await states.wait()
        // The loop may take all five at once (then only 5 goes out); never more than two.
        #expect(lines == ["p2/state 0 1", "p2/state 0 5"] || lines == ["p2/state 0 5"], "\(lines)")
        await harness.stop()
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func aPasswordFileUserConnectsAndAWrongPasswordIsRefusedOnce() async throws {
        let broker = try await TestBroker(users: ["laptop-3": "correct horse"])
        defer { broker.remove() }
        var configuration = Self.configuration(broker, id: "laptop-3", prefix: "p3")
        configuration.username = "laptop-3"
        configuration.password = "wrong"
        let refused = try Harness(configuration)
        let event = try await refused.next { if case .disconnected = $0 { true } else { false } }
        #expect(event == .disconnected("the broker \(broker.url) refused the connection: Not authorized"))
        // Refused again a second later: logged once.
        try await Task.sleep(for: .milliseconds(1500))
        #expect(refused.logs.messages.filter { $0.contains("refused") }.count == 1)
        #expect(!refused.logs.messages.joined().contains("wrong"))
        await refused.stop()

        configuration.password = "correct horse"
        let accepted = try Harness(configuration)
        try await accepted.connected()
        #expect(
            try await broker.retained("p3/#", user: ("laptop-3", "correct horse")) == ["p3/availability online"])
        await accepted.stop()
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func theLinkReconnectsWhenTheBrokerReturnsAndRepublishes() async throws {
        let broker = try await TestBroker()
        defer { broker.remove() }
        let harness = try Harness(Self.configuration(broker, id: "laptop-4", prefix: "p4"))
        harness.link.setRetained(topic: "p4/state", payload: Array("{}".utf8))
        try await harness.connected()
        broker.stop()
        _ = try await harness.next { if case .disconnected = $0 { true } else { false } }
        // Down for 6 s: attempts after 1, 2 and 4 s of backoff (at about 1, 3 and 7 s).
        try await Task.sleep(for: .seconds(6))
        let back = Date()
        try await broker.start()
        try await harness.connected(within: 5)
        let took = Date().timeIntervalSince(back)
        #expect(took < 2, "reconnected \(took) s after the broker returned")
        try await withGuard("the republished state") {
            while try await broker.retained("p4/#").count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(try await broker.retained("p4/#") == ["p4/availability online", "p4/state {}"])
        await harness.stop()
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func aNetworkChangeRetriesAtOnceAndNoRoutePauses() async throws {
        let broker = try await TestBroker()
        let port = broker.port
        broker.remove()
        let configuration = MQTTLink.Configuration(
            broker: .tcp(host: "127.0.0.1", port: port, tls: false), clientID: "laptop-5", keepalive: .seconds(15),
            prefix: "p5")
        let harness = try Harness(configuration)
        _ = try await harness.next { if case .disconnected(let r) = $0 { r.contains("cannot connect") } else { false } }
        harness.link.setRoute(false)
        let paused = try await harness.next {
            if case .disconnected(let r) = $0 { r.contains("no route") } else { false }
        }
        #expect(paused == .disconnected("no route to the broker: waiting for the network"))
        await harness.stop()
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func tlsVerifiesTheBrokerAndAWrongCAConnectsNeverWithAClearError() async throws {
        let certificates = TemporaryDirectory("netrules-mqtt-tls")
        defer { certificates.remove() }
        let authority = try TestCertificateAuthority("broker", in: certificates.path)
        let other = try TestCertificateAuthority("other", in: certificates.path)
        let server = try authority.issue("server", commonName: "127.0.0.1", subjectAltNames: ["IP:127.0.0.1"])
        let broker = try await TestBroker(tls: (server.certificatePath, server.keyPath))
        defer { broker.remove() }
        var configuration = MQTTLink.Configuration(
            broker: .tcp(host: "127.0.0.1", port: broker.port, tls: true), clientID: "laptop-6",
            caFile: other.certificatePath, keepalive: .seconds(15), prefix: "p6")
        let refused = try Harness(configuration)
        let event = try await refused.next { if case .disconnected = $0 { true } else { false } }
        guard case .disconnected(let reason) = event else { return }
        #expect(reason.contains("the TLS handshake failed"), "\(reason)")
        #expect(reason.contains("no fallback"))
        await refused.stop()

        configuration.caFile = authority.certificatePath
        let verified = try Harness(configuration)
        try await verified.connected()
        await verified.stop()
    }
}
