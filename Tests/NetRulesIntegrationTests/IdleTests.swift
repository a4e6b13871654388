import Foundation
import NetRulesTesting
import Testing

/// An idle daemon does not wake up (issue 14): with rules that need no timer, no thread of the
/// built daemon has a single context switch while nothing happens.
///
/// Before, libdispatch's manager thread re-armed a 1 s timer forever once any task had reached the
/// global executor (design note 0009). This measures the real process, as `netrules-bench idle` does, on a
/// shorter window.
@Suite(.timeLimit(.minutes(5)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct IdleTests {
    static let rules = """
        version: 1
        rules:
          - name: link-down
            when: { interface: { name: nre0, state: down } }
            do:
              - run: "true"
          - name: uplink-missing
            when: { fact: { key: interfaces.eth9, equals: down } }
            do:
              - run: "true"

        """

    @Test func noThreadOfAnIdleDaemonWakesUp() async throws {
        // The link stays down: bringing it up starts IPv6 duplicate address detection, whose new
        // address a second later is a real event the netlink observer rightly wakes for.
        try await Testbed.run(networkUp: false) { testbed in
            // Not in the scenario's directory: the daemon's log is written there, and the rule
            // watcher wakes for every change in the directory it watches.
            try FileManager.default.createDirectory(atPath: testbed.path("rules"), withIntermediateDirectories: true)
            let rules = try testbed.write(Self.rules, to: "rules/idle.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            // Settle: the start-up firing's action, the observers' first reports, the control socket.
            try await Task.sleep(for: .seconds(1))
            let before = try Self.contextSwitches(of: daemon.pid)
            try await Task.sleep(for: .seconds(4))
            let after = try Self.contextSwitches(of: daemon.pid)
            var woke: [String] = []
            for (tid, sample) in after.sorted(by: { $0.key < $1.key }) {
                let count = sample.switches - (before[tid]?.switches ?? 0)
                if count != 0 { woke.append("\(sample.name) (\(tid)): \(count) context switches in 4s") }
            }
            for (tid, sample) in before where after[tid] == nil {
                woke.append("\(sample.name) (\(tid)) ended during the window")
            }
            #expect(woke.isEmpty, "threads of the idle daemon woke up:\n\(woke.joined(separator: "\n"))")
            #expect(after.count >= 2, "the daemon has \(after.count) threads")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    /// Each thread's name and voluntary + involuntary context switches, by thread id.
    static func contextSwitches(of pid: pid_t) throws -> [Int: (name: String, switches: Int)] {
        var samples: [Int: (name: String, switches: Int)] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            guard let tid = Int(task),
                let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            else { continue }
            var name = "?"
            var switches = 0
            for line in status.split(separator: "\n") {
                let parts = line.split(whereSeparator: { $0 == ":" || $0 == "\t" || $0 == " " })
                guard parts.count >= 2 else { continue }
                switch parts[0] {
                case "Name": name = String(parts[1])
                case "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches": switches += Int(parts[1]) ?? 0
                default: break
                }
            }
            samples[tid] = (name, switches)
        }
        return samples
    }
}
