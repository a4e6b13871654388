import Foundation
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesDaemon
@testable import NetRulesLinux

/// Supervised observers in the real daemon: a netlink observer whose socket breaks and an observer
/// plugin that exits make their facts unknown at once, are logged with the cause, and come back
/// after the back-off with their facts.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DaemonSupervisionTests {
    /// Rules that read the facts but never fire: the stand-in runner would hold their actions.
    static let rules = """
        version: 1
        rules:
          - name: loopback-gone
            when: { fact: { key: interfaces.lo, equals: gone } }
            do:
              - run: echo gone
          - name: vpn-down
            when: { fact: { key: vpn.up, equals: "false" } }
            do:
              - run: echo vpn
        """

    @Test(.enabled(if: isRoot, "a network namespace for the netlink observer needs root"))
    func aNetlinkObserverWhoseSocketBreaksIsRestartedAndItsFactsAreUnknownMeanwhile() async throws {
        let namespace = try TestNamespace.create(prefix: "nrsup")
        defer { namespace.delete() }
        let observer = LinuxNetworkObserver(loop: .testLoop, namespacePath: "/var/run/netns/\(namespace.name)")
        let harness = try Harness(
            rules: Self.rules, observers: [ObserverPlan.Entry(identity: "netlink", observer: observer)])
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        let daemon = harness.daemon
        try await waitUntil("the loopback interface's fact") { await daemon.facts()["interfaces.lo"].isKnown }
        try await waitUntil("the reader's socket") { observer.statistics.descriptor >= 0 }

        // The socket's descriptor now names /dev/null: the next read fails as a broken socket's
        // would. The event loop's poll still waits on the socket itself, so a kernel event wakes it.
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        #expect(dup2(null, observer.statistics.descriptor) >= 0)
        close(null)
        try namespace.ip("link", "set", "lo", "down")
        let broke = ContinuousClock.now
        try await waitUntil("the facts to become unknown") { await daemon.facts()["interfaces.lo"] == .unknown }
        #expect(ContinuousClock.now - broke < .seconds(1))
        #expect(
            harness.log.messages.contains {
                $0.hasPrefix("observer 'netlink' stopped: ") && $0.contains("recvmsg")
                    && $0.contains("unknown until it is back (") && $0.contains("interfaces.lo")
                    && $0.hasSuffix("starting it again in 1s")
            }, "\(harness.log.messages)")
        try await waitUntil("the observer to come back", timeout: .seconds(5)) {
            await daemon.facts()["interfaces.lo"].isKnown
        }
        #expect(harness.log.messages.contains("observer 'netlink': starting again (attempt 1)"))
        harness.daemon.shutdown()
        #expect(await harness.running.value == 0)
    }

    @Test func aPluginThatExitsLosesItsFactsAndIsStartedAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/nr-sup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The first run reports and exits; later runs report and stay.
        let script = """
            echo '{"vpn.up": true}'
            if [ -e \(directory)/ran ]; then exec sleep 600; fi
            touch \(directory)/ran; sleep 0.2; exit 4
            """
        let plugin = ExecObserver(
            definition: ObserverDefinition(name: "vpn", command: ["/bin/sh", "-c", script]), loop: .testLoop,
            logger: .disabled)
        let harness = try Harness(
            rules: Self.rules, observers: [ObserverPlan.Entry(identity: "exec:vpn", observer: plugin)])
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        let daemon = harness.daemon
        try await waitUntil("the plugin's fact") { await daemon.facts()["vpn.up"] == .value(.bool(true)) }
        try await waitUntil("the fact to become unknown when it exits") { await daemon.facts()["vpn.up"] == .unknown }
        #expect(
            harness.log.messages.contains(
                "observer 'vpn' stopped: exited with status 4; the 1 fact it reported is unknown until it is back "
                    + "(vpn.up); 1 rule cannot become true until it is back: 'vpn-down'; starting it again in 1s"),
            "\(harness.log.messages)")
        try await waitUntil("the plugin to report again", timeout: .seconds(5)) {
            await daemon.facts()["vpn.up"] == .value(.bool(true))
        }
        harness.daemon.shutdown()
        #expect(await harness.running.value == 0)
    }
}

typealias Harness = DaemonServiceTests.Harness
