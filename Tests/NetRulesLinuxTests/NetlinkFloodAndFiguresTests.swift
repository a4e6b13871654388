@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesLinux

/// Overflow/resync under a flood, and the figures the issue asks for (latency, idle wake-ups, memory).
@Suite(.timeLimit(.minutes(5)), .enabled(if: TestNamespace.isAvailable, namespacesUnavailableReason))
struct NetlinkFloodAndFiguresTests {
    /// The facts a fresh dump of the namespace implies, read on a thread inside it.
    private func freshFacts(_ namespace: TestNamespace) async throws -> [FactKey: FactState] {
        try await DedicatedThread.spawnAndWait(name: "test-dump", networkNamespace: namespace.path) {
            let session = try RouteNetlinkSession(subscribe: false)
            try session.resyncAll()
            return session.table.facts(wireless: [])
        }
    }

    @Test func floodOverflowsTheSocketAndResyncConvergesToAFreshDump() async throws {
        try await TestNamespace.with(prefix: "nrl") { namespace in
            try namespace.batch(["link add v0 type veth peer name v1", "link set v0 up", "link set v1 up"])
            // The smallest buffer the kernel allows (it doubles the request and floors it at ~2 KiB).
            let observer = LinuxNetworkObserver(loop: .testLoop, namespacePath: namespace.path, receiveBufferSize: 1024)
            let facts = ObservedFacts(observer)
            do {
                try await facts.waitFor(.interfaceState("v0"), .text("up"))
                var commands: [String] = []
                for i in 0..<3000 { commands.append("addr add 10.20.\(i / 250).\(i % 250 + 1)/32 dev v0") }
                for i in stride(from: 0, to: 3000, by: 2) {
                    commands.append("addr del 10.20.\(i / 250).\(i % 250 + 1)/32 dev v0")
                }
                commands.append("addr add 10.30.0.2/24 dev v0")
                commands.append("route add default via 10.30.0.1")
                try namespace.batch(commands)

                let expected = try await freshFacts(namespace)
                #expect((expected[.ip]?.value?.elements.count ?? 0) == 1501)
                try await facts.waitUntil("facts equal a fresh dump", timeout: .seconds(30)) { store in
                    expected.allSatisfy { store[$0.key] == $0.value }
                }
                #expect(
                    observer.statistics.overflowResyncs > 0, "the flood never overflowed the socket; resync untested")
                print(
                    "flood: \(commands.count) changes, \(observer.statistics.overflowResyncs) overflow resyncs, \(observer.statistics.reports) reports"
                )
            } catch {
                try? await facts.stop()
                throw error
            }
            try await facts.stop()
        }
    }

    @Test func figuresLatencyIdleWakeupsAndMemory() async throws {
        try await TestNamespace.with(prefix: "nrl") { namespace in
            try namespace.batch(["link add v0 type veth peer name v1", "link set v0 up", "link set v1 up"])
            let observer = LinuxNetworkObserver(loop: .testLoop, namespacePath: namespace.path)
            let rssBefore = Self.residentKiB()
            let facts = ObservedFacts(observer)
            do {
                try await facts.waitFor(.interfaceState("v0"), .text("up"))
                // The toggling socket lives in the namespace; it is created on a thread that joined it.
                let control = try await DedicatedThread.spawnAndWait(
                    name: "test-control", networkNamespace: namespace.path
                ) {
                    try NetlinkSocket(protocol: 0)  // NETLINK_ROUTE
                }
                defer { control.close() }
                let index = try await DedicatedThread.spawnAndWait(name: "test-index", networkNamespace: namespace.path)
                {
                    let session = try RouteNetlinkSession(subscribe: false)
                    try session.resyncAll()
                    return session.table.links.values.first { $0.name == "v0" }!.index
                }
                let clock = ContinuousClock()
                var down: [Duration] = []
                var up: [Duration] = []
                for round in 0..<200 {
                    let goUp = round % 2 == 1
                    let started = clock.now
                    try control.send(RouteNetlinkRequest.setLink(index: index, up: goUp, sequence: UInt32(round + 10)))
                    try await facts.waitFor(.interfaceState("v0"), .text(goUp ? "up" : "down"))
                    (goUp ? { up.append(clock.now - started) } : { down.append(clock.now - started) })()
                    while case .messages = try control.receive() {}  // discard acks
                }
                let all = (down + up).sorted()
                print(
                    "figures: link change -> fact update over \(all.count) changes: p50 \(Self.ms(all, 0.5)) ms, p99 \(Self.ms(all, 0.99)) ms; down p50 \(Self.ms(down.sorted(), 0.5)) ms, up p50 \(Self.ms(up.sorted(), 0.5)) ms"
                )

                // Idle: let IPv6 DAD and router solicitation settle, then count the reader thread's wake-ups.
                try await Task.sleep(for: .seconds(2))
                let thread = observer.statistics.threadID
                let before = Self.contextSwitches(thread: thread)
                try await Task.sleep(for: .seconds(10))
                let after = Self.contextSwitches(thread: thread)
                let wakeups = Double(after - before) / 10
                print("figures: idle wake-ups of the netlink reader thread: \(wakeups)/s over 10 s")
                print(
                    "figures: resident memory: test process \(Self.residentKiB()) KiB (\(Self.residentKiB() - rssBefore) KiB more than before the observer started)"
                )
                #expect(wakeups < 0.5)
                #expect(Self.ms(all, 0.5) < 50)
            } catch {
                try? await facts.stop()
                throw error
            }
            try await facts.stop()
        }
    }

    private static func ms(_ sorted: [Duration], _ quantile: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let d = sorted[min(sorted.count - 1, Int(Double(sorted.count) * quantile))]
        return (d / .microseconds(100)).rounded() / 10
    }

    /// Voluntary plus involuntary context switches of one thread, from /proc/self/task/TID/status.
    private static func contextSwitches(thread: pid_t) -> Int {
        let text = ResolverObserver.readText("/proc/self/task/\(thread)/status") ?? ""
        return text.split(separator: "\n").filter { $0.contains("ctxt_switches") }
            .compactMap { Int($0.split(separator: ":").last!.trimmingPrefix(while: { $0 == " " || $0 == "\t" })) }
            .reduce(0, +)
    }

    private static func residentKiB() -> Int {
        let text = ResolverObserver.readText("/proc/self/status") ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
