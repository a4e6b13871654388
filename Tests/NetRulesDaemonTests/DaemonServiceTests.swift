import Foundation
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesLinux
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The `Daemon` actor with its services replaced: a scripted observer, a recording action sink and
/// an in-memory state store. The wiring (event order, effects, shutdown's drain, reload through
/// the control request) runs for real, without root, a network or child processes.
@Suite(.timeLimit(.minutes(1)))
struct DaemonServiceTests {
    static let rules = DaemonCoreTests.twoActions()

    /// A daemon on `rules` in a fresh directory, with its stand-ins.
    struct Harness {
        let directory: String
        let daemon: Daemon
        let actions = RecordingActions()
        let store: MemoryStateStore
        let observer = ScriptedObserver()
        let log = CapturingLogSink()
        let running: Task<Int32, Never>

        /// - Parameters:
        ///   - observers: the observers to run instead of the scripted one.
        ///   - attached: services to attach, as `netrules run` attaches its own.
        init(
            rules: String = DaemonServiceTests.rules, store: MemoryStateStore = MemoryStateStore(),
            in directory: String? = nil, observers: [ObserverPlan.Entry]? = nil, attached: [AttachedService] = []
        )
            throws
        {
            let directory =
                directory ?? FileManager.default.temporaryDirectory.path + "/netrules-service-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try rules.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
            self.directory = directory
            self.store = store
            var options = DaemonOptions(
                loop: .testLoop, ruleFiles: [directory + "/rules.yaml"],
                paths: DaemonPaths(
                    stateDirectory: directory + "/state", controlSocket: directory + "/control.sock",
                    ruleDirectory: directory),
                environment: [:], logger: Logger(label: "test", level: .info, sink: log))
            let (actions, store, observer) = (self.actions, store, self.observer)
            let entries = observers ?? [ObserverPlan.Entry(identity: "scripted", observer: observer)]
            options.services.actions = { _ in actions }
            options.services.stateStore = { _ in store }
            options.services.observers = { _, _, _ in entries }
            options.services.attached = attached
            let daemon = Daemon(options: options)
            self.daemon = daemon
            running = Task { await daemon.run() }
        }

        /// Returns once the daemon started (it logged `ready`).
        func ready() async throws {
            try await waitUntil("the daemon to start") { log.messages.contains { $0.hasPrefix("ready: ") } }
        }

        func rewrite(_ rules: String) throws {
            try rules.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
        }
    }

    /// The MQTT client is attached to every daemon, and is idle without an `mqtt:` section: it
    /// watches no fact (a watcher turns on the Wi-Fi signal's sampling, a wake-up every interval
    /// on a laptop whose rules never read `signal`). A `watch` client does turn it on.
    @Test func withoutAnMQTTSectionTheFleetWatchesNoFactAndTheSignalIsNotSampled() async throws {
        let harness = try Harness(attached: [
            FleetService(environment: [:], version: "test", loop: .testLoop, logger: .disabled).attached
        ])
        try await harness.ready()
        // The fleet service has read the rule set by now (its first notice), and stayed idle.
        try await Task.sleep(for: .milliseconds(100))
        #expect(await harness.daemon.signalSampling.interval == nil)
        let watching = await harness.daemon.factChanges()
        #expect(await harness.daemon.signalSampling.interval != nil)
        withExtendedLifetime(watching) {}
        harness.daemon.shutdown()
        _ = await harness.running.value
    }

    @Test func aFiringIsJournaledBeforeItIsSubmittedAndShutdownWaitsForItsActions() async throws {
        let harness = try Harness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        harness.observer.report([.ssid: "Office"])
        try await waitUntil("the firing") { harness.actions.submitted.count == 1 }
        let firing = harness.actions.submitted[0]
        #expect(harness.store.saved.restored?.inflight.map(\.id) == [firing.id!], "recorded before it was handed over")

        harness.daemon.shutdown()
        harness.actions.finish(firing, action: 0)
        // Waited for, not slept on: on a loaded machine the result can take longer than 100 ms.
        try await waitUntil("the firing recorded as running its second action") {
            harness.store.saved.restored?.inflight.map(\.nextAction) == [1]
        }
        harness.actions.finish(firing, action: 1)
        #expect(await harness.running.value == 0)
        #expect(harness.store.saved.restored?.inflight.isEmpty == true)
        #expect(harness.store.saved.journal.isEmpty, "the last snapshot holds everything")
        #expect(harness.log.messages.contains("rule 'office' enter"))
    }

    @Test func aBrokenReloadKeepsTheRulesRunning() async throws {
        let harness = try Harness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        try await harness.ready()
        try harness.rewrite("version: 1\nrules:\n  - name: office\n    when: { ssid: [ }\n")
        let outcome = await harness.daemon.reloadOnRequest()
        #expect(!outcome.reloaded)
        #expect(outcome.rules == 1)
        #expect(outcome.rendered.contains("rules.yaml:4:"), "\(outcome.rendered)")
        // reload --json's array: the same objects as check --json's.
        #expect(outcome.diagnostics.contains { $0.file.hasSuffix("rules.yaml") && $0.mark.line == 4 })
        harness.observer.report([.ssid: "Office"])
        try await waitUntil("the old rule to fire") { harness.actions.submitted.count == 1 }

        // A good file replaces them; the rule's changed actions keep its state (its condition is
        // the same: no second firing, issue 34) and run on its next edge.
        try harness.rewrite(Self.rules.replacingOccurrences(of: "echo two", with: "echo three"))
        #expect(await harness.daemon.reloadOnRequest().reloaded)
        harness.observer.report([.ssid: nil])
        harness.observer.report([.ssid: "Office"])
        try await waitUntil("the changed rule to fire") { harness.actions.submitted.count == 2 }
        #expect(harness.actions.submitted[1].actions.map(\.description) == ["run: echo one", "run: echo three"])
        harness.daemon.shutdown()
        harness.daemon.shutdown()
        #expect(await harness.running.value == 0)

        // Asked once the daemon stopped, a reload is refused at once, not left waiting forever.
        let daemon = harness.daemon
        let late = try await withGuard(seconds: 5, "a reload asked after the daemon stopped") {
            await daemon.reloadOnRequest()
        }
        #expect(!late.reloaded && late.rendered.contains("stopping"), "\(late)")
    }

    @Test func aRestartResubmitsWhatTheLastRunLeftInFlight() async throws {
        let first = try Harness()
        defer { try? FileManager.default.removeItem(atPath: first.directory) }
        first.observer.report([.ssid: "Office"])
        try await waitUntil("the firing") { first.actions.submitted.count == 1 }
        let firing = first.actions.submitted[0]
        first.actions.finish(firing, action: 0)
        try await waitUntil("the first action's result") {
            first.store.saved.restored?.inflight.first?.nextAction == 1
        }
        // Stopped at once (a second SIGTERM): the second action reports nothing.
        first.daemon.shutdown()
        first.daemon.shutdown()
        #expect(await first.running.value == 0)

        let second = try Harness(store: MemoryStateStore(first.store.saved), in: first.directory)
        try await waitUntil("the resumed firing") { second.actions.submitted.count == 1 }
        let resumed = second.actions.submitted[0]
        #expect(resumed.id == firing.id)
        #expect(resumed.firstAction == 1)
        // The same network after the restart fires nothing new: the confirmed truth was kept.
        second.observer.report([.ssid: "Office"])
        try await Task.sleep(for: .milliseconds(100))
        #expect(second.actions.submitted.count == 1)
        second.actions.finish(resumed, action: 1)
        second.daemon.shutdown()
        #expect(await second.running.value == 0)
        #expect(second.store.saved.restored?.inflight.isEmpty == true)
    }
}
