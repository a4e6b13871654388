import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesLinux

/// The netlink observer against a real kernel, inside throwaway namespaces with a veth pair.
@Suite(.timeLimit(.minutes(3)), .enabled(if: TestNamespace.isAvailable, namespacesUnavailableReason))
struct NetlinkNamespaceTests {
    /// A namespace with `v0`/`v1` up and `10.9.0.2/24` on `v0`, observed from inside.
    private func withObservedNamespace(
        _ body: (TestNamespace, ObservedFacts) async throws -> Void
    ) async throws {
        try await TestNamespace.with(prefix: "nrl") { namespace in
            try namespace.batch([
                "link add v0 type veth peer name v1", "link set v0 up", "link set v1 up",
                "addr add 10.9.0.2/24 dev v0",
            ])
            let facts = ObservedFacts(LinuxNetworkObserver(loop: .testLoop, namespacePath: namespace.path))
            do {
                try await facts.waitFor(.interfaceState("v0"), .text("up"))
                try await body(namespace, facts)
            } catch {
                try? await facts.stop()
                throw error
            }
            try await facts.stop()
        }
    }

    @Test func linkDownDropsTheGatewayAndUpRestoresTheInterface() async throws {
        try await withObservedNamespace { namespace, facts in
            try namespace.ip(words: "route add default via 10.9.0.1")
            try await facts.waitFor(.gateway, .text("10.9.0.1"))
            #expect(facts.store[.network] == .text("wired"))
            #expect(facts.store[.interfaceState("lo")] == .text("up"))

            try namespace.ip(words: "link set v0 down")
            // The kernel drops the IPv4 default route without a route event; the observer must notice.
            let down = try await facts.waitUntil("v0 down and no gateway") {
                $0[.interfaceState("v0")] == .text("down") && $0[.gateway] == .absent
            }
            #expect(down[.network] == .text("none"))
            #expect(down[.ip] == .value(.list([])))

            try namespace.ip(words: "link set v0 up")
            try await facts.waitFor(.interfaceState("v0"), .text("up"))
            try await facts.waitFor(.ip, .value(.list(["10.9.0.2/24"])))
            try namespace.ip(words: "route add default via 10.9.0.1")
            try await facts.waitFor(.gateway, .text("10.9.0.1"))
        }
    }

    @Test func addressesAreAddedAndRemovedForBothFamilies() async throws {
        try await withObservedNamespace { namespace, facts in
            try await facts.waitFor(.ip, .value(.list(["10.9.0.2/24"])))
            try namespace.ip(words: "addr add 10.9.1.7/16 dev v0")
            try namespace.ip(words: "-6 addr add 2001:db8::2/64 dev v0 nodad")
            try await facts.waitFor(.ip, .value(.list(["10.9.0.2/24", "10.9.1.7/16", "2001:db8::2/64"])))

            try namespace.ip(words: "addr del 10.9.0.2/24 dev v0")
            try namespace.ip(words: "-6 addr del 2001:db8::2/64 dev v0")
            try await facts.waitFor(.ip, .value(.list(["10.9.1.7/16"])))
        }
    }

    @Test func defaultRouteAddReplaceRemoveAndLowerMetricWins() async throws {
        try await withObservedNamespace { namespace, facts in
            try namespace.ip(words: "route add default via 10.9.0.1 metric 100")
            try await facts.waitFor(.gateway, .text("10.9.0.1"))

            try namespace.ip(words: "route replace default via 10.9.0.3 metric 100")
            try await facts.waitFor(.gateway, .text("10.9.0.3"))

            try namespace.ip(words: "route add default via 10.9.0.4 metric 50")
            try await facts.waitFor(.gateway, .text("10.9.0.4"))

            try namespace.ip(words: "route del default via 10.9.0.4 metric 50")
            try await facts.waitFor(.gateway, .text("10.9.0.3"))

            try namespace.ip(words: "route del default metric 100")
            let after = try await facts.waitFor(.gateway, .absent)
            #expect(after[.network] == .text("none"))

            try namespace.ip(words: "-6 addr add 2001:db8::2/64 dev v0 nodad")
            try namespace.ip(words: "-6 route add default via 2001:db8::1 dev v0")
            let six = try await facts.waitFor(.gateway6, .text("2001:db8::1"))
            #expect(six[.network] == .text("wired"))
            try namespace.ip(words: "-6 route del default via 2001:db8::1 dev v0")
            try await facts.waitFor(.gateway6, .absent)
        }
    }

    @Test func gatewayMACComesFromTheNeighbourTable() async throws {
        try await withObservedNamespace { namespace, facts in
            try namespace.ip(words: "route add default via 10.9.0.1")
            let before = try await facts.waitFor(.gateway, .text("10.9.0.1"))
            #expect(before[.gatewayMAC] == .unknown)
            // The observer asked the kernel to resolve 10.9.0.1, which nobody answers: replace its entry.
            try namespace.ip(words: "neigh replace 10.9.0.1 lladdr 02:00:5e:00:53:01 dev v0 nud permanent")
            try await facts.waitFor(.gatewayMAC, .text("02:00:5e:00:53:01"))
            try namespace.ip(words: "neigh del 10.9.0.1 dev v0")
            try await facts.waitFor(.gatewayMAC, .unknown)
            try namespace.ip(words: "route del default via 10.9.0.1")
            try await facts.waitFor(.gatewayMAC, .absent)
        }
    }

    /// After a link change the neighbour table holds no entry for the gateway until the kernel
    /// resolves it: `gateway.mac` is unknown all that time, never `none`, and then the MAC.
    @Test func gatewayMACIsUnknownNeverAbsentAfterALinkChangeUntilTheNeighbourAnswers() async throws {
        try await TestNamespace.with(prefix: "nrm") { namespace in
            // v1 in a second namespace answers ARP for the gateway 10.9.0.1.
            let peer = try TestNamespace.create(prefix: "nrp")
            defer { peer.delete() }
            try namespace.batch([
                "link add v0 type veth peer name v1", "link set v1 netns \(peer.name)",
                "addr add 10.9.0.2/24 dev v0",
            ])
            try peer.batch(["addr add 10.9.0.1/24 dev v1", "link set v1 up"])
            let facts = ObservedFacts(LinuxNetworkObserver(loop: .testLoop, namespacePath: namespace.path))
            do {
                try await facts.waitFor(.interfaceState("v0"), .text("down"))
                try namespace.batch(["link set v0 up", "route add default via 10.9.0.1"])
                // Nothing sends to the gateway: the observer asks the kernel to resolve it.
                var sawAbsent = false
                let resolved = try await facts.waitUntil("gateway.mac resolved") { store in
                    if store[.gateway] == .text("10.9.0.1") && store[.gatewayMAC] == .absent { sawAbsent = true }
                    return store[.gatewayMAC].value != nil
                }
                #expect(!sawAbsent)
                let mac = try #require(resolved[.gatewayMAC].value)

                // Down and up again: the kernel flushed the entry; unknown again until it answers.
                try namespace.ip(words: "link set v0 down")
                try await facts.waitFor(.gateway, .absent)
                try namespace.batch(["link set v0 up", "route add default via 10.9.0.1"])
                try await facts.waitUntil("gateway.mac resolved again") { store in
                    if store[.gateway] == .text("10.9.0.1") && store[.gatewayMAC] == .absent { sawAbsent = true }
                    return store[.gateway] == .text("10.9.0.1") && store[.gatewayMAC] == .value(mac)
                }
                #expect(!sawAbsent)
            } catch {
                try? await facts.stop()
                throw error
            }
            try await facts.stop()
        }
    }

    @Test func renameAndDeleteMakeOldNamesAbsent() async throws {
        try await withObservedNamespace { namespace, facts in
            try await facts.waitFor(.interfaceState("v1"), .text("up"))
            try namespace.batch(["link set v1 down", "link set v1 name v9", "link set v9 up"])
            let renamed = try await facts.waitFor(.interfaceState("v9"), .text("up"))
            #expect(renamed[.interfaceState("v1")] == .absent)

            try namespace.ip(words: "link del v9")
            let deleted = try await facts.waitUntil("both veth ends gone") {
                $0[.interfaceState("v9")] == .absent && $0[.interfaceState("v0")] == .absent
            }
            #expect(deleted[.ip] == .value(.list([])))
        }
    }
}
