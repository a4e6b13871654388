import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesLinux

/// Issue 37, item 8: the daemon's line at each start saying there is no system bus is a warning
/// only while a rule, a place or the MQTT state reads a fact NetworkManager reports; otherwise it
/// is `info`, because those facts being unknown changes nothing.
@Suite(.timeLimit(.minutes(1)))
struct NetworkManagerWarningTests {
    static func rules(_ when: String, extra: String = "") -> RuleSet {
        DaemonCoreDriver.rules(
            "version: 1\n\(extra)rules:\n  - { name: a, when: \(when), do: [ { run: \"true\" } ] }\n")
    }

    @Test func onlyRulesReadingNetworkManagerFactsMakeItAWarning() {
        #expect(!ObserverPlan.readsNetworkManager(Self.rules("{ network: wired }"), reportsWiFi: true))
        #expect(!ObserverPlan.readsNetworkManager(Self.rules("{ ssid: Office }"), reportsWiFi: false))
        #expect(ObserverPlan.readsNetworkManager(Self.rules("{ ssid: Office }"), reportsWiFi: true))
        #expect(
            ObserverPlan.readsNetworkManager(
                Self.rules("{ fact: { key: connection, equals: Work } }"), reportsWiFi: false))
        #expect(
            ObserverPlan.readsNetworkManager(
                Self.rules("{ fact: { key: nm.connectivity, equals: full } }"), reportsWiFi: false))
        let place = Self.rules(
            "{ place: office }", extra: "places:\n  office: { when: { fact: { key: connection, equals: Office } } }\n")
        #expect(ObserverPlan.readsNetworkManager(place, reportsWiFi: false))
    }

    @Test func thePlanGivesTheObserverTheLevel() throws {
        func level(_ ruleSet: RuleSet) throws -> Logger.Level {
            let plan = ObserverPlan(
                ruleSet: ruleSet, loop: .testLoop, kernelHasNL80211: WiFiSource.kernelHasNL80211,
                signalSampling: SignalSampling(), logger: .disabled)
            let entry = try #require(plan.entries.first { $0.identity.hasPrefix("networkmanager:") })
            return try #require(entry.observer as? NetworkManagerObserver).missingBusLevel
        }
        #expect(try level(Self.rules("{ network: wired }")) == .info)
        #expect(try level(Self.rules("{ fact: { key: connection, equals: Work } }")) == .warning)
    }

    @Test func withoutABusTheLineIsAtTheGivenLevel() async throws {
        for expected in [Logger.Level.info, .warning] {
            let log = CapturingLogSink()
            let observer = NetworkManagerObserver(
                loop: .testLoop, reportsWiFi: false, busAddress: "unix:path=/nonexistent/netrules-bus",
                missingBusLevel: expected,
                logger: log.logger())
            let task = Task {
                let (_, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
                try? await observer.run(reporting: FactReporter(continuation))
            }
            for _ in 0..<200 where log.records.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            task.cancel()
            await task.value
            let lines = log.records.map { "\($0.level) \($0.message)" }
            #expect(lines.count == 1, "\(lines)")
            #expect(
                lines.first?.hasPrefix("\(expected) networkmanager: no system bus (") == true, "\(lines)")
            #expect(lines.first?.hasSuffix("); its facts stay unknown") == true, "\(lines)")
        }
    }
}
