import NetRulesCore
import NetRulesMQTT
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// The `mqtt:` action through the real runner and a real MQTT link to a real mosquitto: QoS 1
/// kept in the outbox while the broker is down and delivered once it is back, with the firing's
/// id as a user property; QoS 0 never kept; a firing's values never leave their topic level.
@Suite(
    .timeLimit(.minutes(2)), .serialized,
    .enabled(
        if: TestBroker.installed, "SKIPPED: mosquitto is not installed (apt-get install mosquitto mosquitto-clients)")
)
struct MQTTActionTests {
    static func mqtt(_ topic: String, payload: String = "", qos: Int = 1) -> ActionSpec {
        ActionSpec(MQTTAction(topic: Fixtures.template(topic), payload: .text(Fixtures.template(payload)), qos: qos))
    }

    /// A link to `broker` whose connections the runner hears of, as `FleetService` tells it.
    final class Connection: Sendable {
        let link: MQTTLink
        let task: Task<Void, Never>
        let listener: Task<Void, Never>

        init(_ broker: TestBroker, runner: ActionRunner, routed: Bool = true) throws {
            let (events, feed) = AsyncStream.makeStream(of: MQTTLink.Event.self)
            let link = try MQTTLink(
                configuration: MQTTLink.Configuration(
                    broker: .tcp(host: "127.0.0.1", port: broker.port, tls: false), clientID: "actions-test",
                    keepalive: .seconds(15), prefix: "netrules/actions-test"),
                loop: .testLoop, logger: .disabled
            ) { feed.yield($0) }
            self.link = link
            // No route: the link waits without trying, until the test says the network is back.
            link.setRoute(routed)
            task = Task {
                do { try await link.run() } catch { Issue.record("the link failed: \(error)") }
            }
            listener = Task {
                for await event in events where event == .connected { await runner.brokerChanged(link) }
            }
        }

        /// Waits until the broker accepted the link (at most 5 s), then tells `runner`.
        func connected(runner: ActionRunner) async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while !link.isConnected {
                guard ContinuousClock.now < deadline else { throw TestBrokerError("the link did not connect in 5 s") }
                try await Task.sleep(for: .milliseconds(10))
            }
            await runner.brokerChanged(link)
        }

        func stop() async {
            link.stop()
            await task.value
            listener.cancel()
        }
    }

    func outboxFiles(_ harness: RunnerHarness) -> [String] {
        // No outbox directory yet means no entry.
        ((try? sys_listDirectory(harness.directory.file("state/outbox")).get(call: "list")) ?? []).filter {
            $0.hasSuffix(".json")
        }
    }

    @Test func qos1MessagesWaitInTheOutboxWhileTheBrokerIsDownThenArriveOnceWithTheFiringID() async throws {
        let broker = try await TestBroker()
        defer { broker.remove() }
        broker.stop()
        let harness = RunnerHarness()
        let connection = try Connection(broker, runner: harness.runner, routed: false)
        await harness.runner.brokerChanged(connection.link)
        for n in 1...3 {
            // One rule each: firings of one rule waiting behind a running one coalesce.
            var firing = Fixtures.firing(
                rule: "office-\(n)", facts: [.ssid: .string("Office")],
                actions: [Self.mqtt("office/{{ssid}}", payload: "in \(n)")])
            firing.id = "firing-\(n)"
            await harness.runner.submit(firing, wallTime: "2026-12-02T10:00:00Z")
        }
        let queued = await harness.settledResults(expecting: 3)
        #expect(
            queued.count == 3 && queued.allSatisfy { if case .queued = $0.outcome { true } else { false } }, "\(queued)"
        )
        #expect(outboxFiles(harness).count == 3)

        try await broker.start()
        let subscriber = try await broker.subscribe("office/#", count: 3, format: "%t %P %p")
        connection.link.networkChanged()
        connection.link.setRoute(true)
        let lines = try await subscriber.wait()
        #expect(
            lines.sorted() == [
                "office/Office firing-id:firing-1 in 1", "office/Office firing-id:firing-2 in 2",
                "office/Office firing-id:firing-3 in 3",
            ])
        let all = await harness.settledResults(expecting: 6)
        #expect(all.dropFirst(3).filter(\.isSuccess).count == 3, "\(all)")
        #expect(all.dropFirst(3).allSatisfy { $0.kind == "mqtt" })
        #expect(outboxFiles(harness).isEmpty)
        // Delivered once: nothing more arrives.
        let again = try await broker.subscribe("office/#", count: 1, seconds: 1)
        #expect(try await again.wait() == [])
        await connection.stop()
    }

    @Test func aQoS0MessageIsSentOnlyWhileConnected() async throws {
        let broker = try await TestBroker()
        defer { broker.remove() }
        let harness = RunnerHarness()
        let connection = try Connection(broker, runner: harness.runner)
        try await connection.connected(runner: harness.runner)
        let subscriber = try await broker.subscribe("t/#", count: 1)
        await harness.runner.submit(
            Fixtures.firing(actions: [Self.mqtt("t/zero", payload: "now", qos: 0)]), wallTime: "t")
        #expect(try await subscriber.wait() == ["t/zero 0 now"])
        #expect(await harness.settledResults(expecting: 1).first?.isSuccess == true)

        broker.stop()
        for _ in 0..<500 where connection.link.isConnected { try await Task.sleep(for: .milliseconds(10)) }
        await harness.runner.submit(
            Fixtures.firing(actions: [Self.mqtt("t/zero", payload: "lost", qos: 0)]), wallTime: "t")
        let results = await harness.settledResults(expecting: 2)
        guard case .failed(let error) = results.last?.outcome else {
            Issue.record("a QoS 0 message without a broker did not fail: \(results)")
            return
        }
        #expect(error.code == .notConnected)
        #expect(error.message.contains("a QoS 0 message is never kept"))
        #expect(outboxFiles(harness).isEmpty)
        await connection.stop()
    }

    @Test func aFiringsValueThatWouldLeaveItsTopicLevelPublishesNothing() async throws {
        let broker = try await TestBroker()
        defer { broker.remove() }
        let harness = RunnerHarness()
        let connection = try Connection(broker, runner: harness.runner)
        try await connection.connected(runner: harness.runner)
        let subscriber = try await broker.subscribe("#", count: 2, seconds: 2)
        let hostile = ["../other", "+", "#", "", "x\u{1b}]0;t\u{7}"]
        for (n, ssid) in hostile.enumerated() {
            // One rule each: firings of one rule waiting behind a running one coalesce.
            await harness.runner.submit(
                Fixtures.firing(rule: "r\(n)", facts: [.ssid: .string(ssid)], actions: [Self.mqtt("office/{{ssid}}")]),
                wallTime: "t")
        }
        let results = await harness.settledResults(expecting: hostile.count)
        for result in results {
            guard case .failed(let error) = result.outcome else {
                Issue.record("a hostile SSID made a topic: \(result)")
                continue
            }
            #expect(error.code == .invalidTopic)
        }
        // Only the link's own availability message, nothing of the rule's.
        #expect(try await subscriber.wait().allSatisfy { $0.hasPrefix("netrules/actions-test/") })
        #expect(outboxFiles(harness).isEmpty)
        await connection.stop()
    }
}

/// What `simulate` shows of an `mqtt:` action: the topic the firing makes and the payload,
/// secrets masked, escaped for the terminal; or why no topic can be made.
@Suite(.timeLimit(.minutes(1)))
struct MQTTActionPreviewTests {
    @Test func thePreviewShowsTheTopicAndPayloadWithSecretsMasked() throws {
        let spec = ActionSpec(
            MQTTAction(
                topic: Fixtures.template("office/{{ssid}}"),
                payload: .json(
                    .object([
                        ConfigMember("ssid", .string("{{ssid}}")), ConfigMember("token", .string("{{env.TOKEN}}")),
                    ]))))
        let firing = Fixtures.firing(facts: [.ssid: .string("Off\u{1b}]0;x\u{7}ice")], actions: [spec])
        let preview = ActionPreview.render(spec, of: firing, wallTime: "2026-12-02T10:00:00Z", utcOffset: { _ in 0 })
        #expect(preview.kind == "mqtt")
        #expect(preview.summary.hasPrefix("mqtt: "))
        #expect(!preview.summary.unicodeScalars.contains("\u{1b}"))
        // The control characters refuse the topic; the preview says so instead of a topic.
        #expect(preview.summary.contains("control character"), "\(preview.summary)")

        let plain = Fixtures.firing(facts: [.ssid: .string("Office")], actions: [spec])
        let shown = ActionPreview.render(spec, of: plain, wallTime: "2026-12-02T10:00:00Z", utcOffset: { _ in 0 })
        #expect(shown.summary == "mqtt: office/Office (qos 1)")
        #expect(shown.details == [#"{"ssid":"Office","token":"<secret>"}"#])
    }
}
