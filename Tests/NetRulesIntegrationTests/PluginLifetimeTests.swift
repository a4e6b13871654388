import Foundation
import Glibc
import NetRulesTesting
import Testing

/// Issue 34, point 7: observer plugins die with the daemon, even when it is killed with SIGKILL,
/// and a restart never runs a second copy (docs/plugins.md, "Lifetime"); so do a running `run:`
/// command and action plugin (docs/rules.md, after "On SIGTERM").
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct PluginLifetimeTests {
    @Test func pluginsDieWithAKilledDaemonAndARestartRunsOneCopyOfEach() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            // A second plugin that never reports anything: it only has to be running.
            let quietFeed = testbed.path("quiet.jsonl")
            _ = try testbed.write("", to: "quiet.jsonl")
            let quiet = try testbed.write(
                "#!/bin/sh\nexec tail -n 0 -F '\(quietFeed)'\n", to: "quiet-observer", executable: true)
            let rules = try testbed.write(
                """
                version: 1
                \(wifi.observersYAML)  - { name: quiet-test, command: ["\(quiet)"] }
                rules:
                  - name: office
                    when: { ssid: Office }
                    do:
                      - run: "true"

                """, to: "lifetime.yaml")
            let feeds = [wifi.feed, quietFeed]
            func copies() -> [String: [PluginProcess]] {
                Dictionary(grouping: PluginProcess.all(readingAnyOf: feeds), by: \.feed)
            }

            let first = try await testbed.startDaemon(rules: [rules])
            try await eventually("one copy of each plugin (log: \(testbed.logTail()))") {
                let running = copies()
                return feeds.allSatisfy { running[$0]?.count == 1 }
            }
            let started = copies()
            for feed in feeds { #expect(started[feed]?.first?.parent == first.pid, "\(feed)'s plugin is not ours") }
            // The daemon's pool threads beyond its first end after 10 s idle; a plugin tied to one
            // of them (PR_SET_PDEATHSIG follows the thread) would die then. Still the same ones:
            try await wait(until: .now + .seconds(11))
            let later = copies()
            for feed in feeds {
                #expect(later[feed]?.map(\.pid) == started[feed]?.map(\.pid), "the plugin of \(feed) was restarted")
            }

            first.killAndReap()
            #expect(first.termination == .signaled(SIGKILL))
            let killed = ContinuousClock.now
            try await eventually("the plugins to end with the daemon", timeout: .seconds(5)) { copies().isEmpty }
            let gone = ContinuousClock.now - killed
            #expect(gone < .seconds(1), "the plugins outlived the daemon by \(gone)")

            let second = try await testbed.startDaemon(rules: [rules])
            try await eventually("the plugins again (log: \(testbed.logTail()))") {
                let running = copies()
                return feeds.allSatisfy { running[$0]?.isEmpty == false }
            }
            // A second copy would appear as soon as the first: give it time to show.
            try await Task.sleep(for: .seconds(1))
            let restarted = copies()
            for feed in feeds {
                #expect(restarted[feed]?.count == 1, "copies of the plugin of \(feed): \(restarted[feed] ?? [])")
                #expect(restarted[feed]?.first?.parent == second.pid)
            }
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            try await eventually("the restarted plugin's facts (facts: \(testbed.daemonFacts()))") {
                testbed.daemonFacts().contains("Office")
            }
            _ = try await testbed.stop(second)
        }
    }
    /// A daemon killed while an action runs: the command and the action plugin get SIGKILL from the
    /// kernel at once, instead of going on as root with nothing left to time them out.
    @Test func runningActionsDieWithAKilledDaemon() async throws {
        try await Testbed.run { testbed in
            let wifi = try WiFiPlugin(in: testbed)
            // Arguments no other process has, to find the actions' processes by.
            let commandMark = "3007.\(getpid())"
            let pluginMark = "3008.\(getpid())"
            let plugins = testbed.path("action-plugins")
            try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
            _ = try testbed.write(
                "#!/bin/sh\nexec sleep \(pluginMark)\n", to: "action-plugins/netrules-action-hold", executable: true)
            let rules = try testbed.write(
                """
                version: 1
                plugins: ["\(plugins)"]
                \(wifi.observersYAML)rules:
                  - name: long-command
                    when: { ssid: Office }
                    do:
                      - run: "sleep \(commandMark)"
                  - name: long-plugin
                    when: { ssid: Office }
                    do:
                      - hold: {}

                """, to: "actions.yaml")
            let marks = [commandMark, pluginMark]
            // A failing run must not leave its sleeps behind for an hour.
            defer { for process in PluginProcess.all(readingAnyOf: marks) { kill(process.pid, SIGKILL) } }
            func running() -> [String: [PluginProcess]] {
                Dictionary(grouping: PluginProcess.all(readingAnyOf: marks), by: \.feed)
            }
            let daemon = try await testbed.startDaemon(rules: [rules])
            try wifi.report(ssid: "Office", bssid: "11:11:11:11:11:11")
            try await eventually("both actions running (log: \(testbed.logTail()))") {
                let now = running()
                return marks.allSatisfy { now[$0]?.count == 1 }
            }
            for mark in marks { #expect(running()[mark]?.first?.parent == daemon.pid, "\(mark) is not the daemon's") }

            daemon.killAndReap()
            let killed = ContinuousClock.now
            try await eventually("the actions to end with the daemon", timeout: .seconds(5)) { running().isEmpty }
            let gone = ContinuousClock.now - killed
            #expect(gone < .seconds(1), "the actions outlived the daemon by \(gone)")
        }
    }

    /// A plugin that forks its worker instead of exec'ing it: the death signal reaches only the
    /// plugin itself, and its worker, left in the plugin's process group, is stopped from the state
    /// directory's record (`plugins.pids`) when the daemon starts again, before the new copy starts.
    @Test func aWorkerAPluginForkedIsStoppedAtTheNextStart() async throws {
        try await Testbed.run { testbed in
            let feed = testbed.path("forked.jsonl")
            _ = try testbed.write("", to: "forked.jsonl")
            // The worker's output goes elsewhere: coreutils' tail -F ends by itself once the reader
            // of its stdout is gone, which would hide what the record is for.
            let plugin = try testbed.write(
                "#!/bin/sh\ntail -n 0 -F '\(feed)' >/dev/null &\nwait\n", to: "forking-observer", executable: true)
            let rules = try testbed.write(
                """
                version: 1
                observers:
                  - { name: forking-test, command: ["\(plugin)"] }
                rules:
                  - name: office
                    when: { ssid: Office }
                    do:
                      - run: "true"

                """, to: "forking.yaml")
            func running() -> [String: [PluginProcess]] {
                Dictionary(grouping: PluginProcess.all(readingAnyOf: [plugin, feed]), by: \.feed)
            }
            let first = try await testbed.startDaemon(rules: [rules])
            try await eventually("the plugin and its worker (log: \(testbed.logTail()))") {
                running()[plugin]?.count == 1 && running()[feed]?.count == 1
            }
            let worker = try #require(running()[feed]?.first)
            first.killAndReap()
            try await eventually("the plugin to end with the daemon", timeout: .seconds(1)) { running()[plugin] == nil }
            #expect(running()[feed]?.map(\.pid) == [worker.pid], "the forked worker is not the death signal's")

            let second = try await testbed.startDaemon(rules: [rules])
            try await eventually("the old worker stopped (log: \(testbed.logTail()))") {
                !(running()[feed] ?? []).contains { $0.pid == worker.pid }
            }
            try await eventually("the new plugin and worker") {
                running()[plugin]?.count == 1 && running()[feed]?.count == 1
            }
            try await Task.sleep(for: .seconds(1))
            let now = running()
            #expect(now[plugin]?.count == 1 && now[feed]?.count == 1, "\(now)")
            #expect(now[plugin]?.first?.parent == second.pid)
            #expect(testbed.log.contains("stopped 1 observer plugin process group(s) a previous netrules left running"))
            _ = try await testbed.stop(second)
        }
    }
}

/// A process of this test as `/proc` shows it: one whose arguments name one of the test's feed
/// files (a plugin's `tail -F`) or marks (an action's `sleep`).
private struct PluginProcess: CustomStringConvertible {
    var pid: pid_t
    var parent: pid_t
    var feed: String

    var description: String { "pid \(pid) (parent \(parent))" }

    /// Every process whose arguments name one of `feeds`; `feed` is the one it names.
    static func all(readingAnyOf feeds: [String]) -> [PluginProcess] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> PluginProcess? in
            guard let pid = pid_t(entry),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8)
            else { return nil }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let feed = feeds.first(where: arguments.contains) else { return nil }
            // "pid (comm) state ppid …": comm may hold spaces, so count from its closing parenthesis.
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // A zombie is gone as far as the test is concerned: it runs nothing.
            guard fields.count > 1, fields[0] != "Z", let parent = pid_t(fields[1]) else { return nil }
            return PluginProcess(pid: pid, parent: parent, feed: feed)
        }
    }
}
