import Foundation
@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesDaemon

/// Counts reports and lets a test await a count (cancellable, so a guard timeout can end the wait).
private final class ReportCounter: Sendable {
    private let state = Mutex<(count: Int, waiters: [Int: (Int, CheckedContinuation<Void, Never>)], next: Int)>(
        (0, [:], 0))

    var count: Int { state.withLock { $0.count } }

    func increment() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let count = state.count
            let due = state.waiters.filter { $0.value.0 <= count }
            for key in due.keys { state.waiters.removeValue(forKey: key) }
            return due.values.map(\.1)
        }
        ready.forEach { $0.resume() }
    }

    func wait(forCount target: Int) async {
        let id = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    if state.count >= target || Task.isCancelled { return true }
                    state.waiters[id] = (target, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.1.resume()
        }
    }
}

/// A running watcher whose reports are counted.
private struct RunningWatcher {
    let counter = ReportCounter()
    let task: Task<Void, any Error>
    let consumer: Task<Void, Never>

    init(_ watcher: RuleFileWatcher) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded)
        task = Task { try await watcher.run(reporting: continuation) }
        let counter = self.counter
        consumer = Task { for await _ in stream { counter.increment() } }
        self.continuation = continuation
    }

    private let continuation: AsyncStream<Void>.Continuation

    func waitForReports(_ count: Int, _ what: String) async throws {
        let counter = self.counter
        try await withGuard(seconds: 10, what) { await counter.wait(forCount: count) }
    }

    func stop() async throws {
        task.cancel()
        try await task.value
        continuation.finish()
        await consumer.value
    }
}

/// Writes `content` into `path` in place (open, write, close), as `echo >` does.
private func writeInPlace(_ path: String, _ content: String = "version: 1\n") {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0)
    _ = content.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress!, $0.count - 1) }
    close(fd)
}

/// The voluntary context switches of the watcher's loop thread (named `netrules-rules`), from /proc.
private func watcherThreadContextSwitches() -> Int? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
    for task in tasks {
        guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
            name.trimmingCharacters(in: .whitespacesAndNewlines) == "netrules-rules",
            let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") })
        else { continue }
        return Int(line.split(separator: "\t").last.map(String.init) ?? "")
    }
    return nil
}

/// Real inotify on temporary directories; the watcher runs its real thread.
@Suite(.timeLimit(.minutes(1)), .serialized)
struct RuleFileWatcherTests {
    /// Longer than the debounce plus scheduling noise on a loaded 2-core machine; used only to
    /// show that nothing (more) arrives.
    static let quietWindow: Duration = .milliseconds(400)

    @Test func inPlaceWriteIsReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml")
        let running = RunningWatcher(try RuleFileWatcher(paths: [file], loop: .testLoop, debounce: .milliseconds(50)))
        writeInPlace(file)
        try await running.waitForReports(1, "a report after an in-place write")
        try await running.stop()
    }

    @Test func renameOverTheFileIsReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml")
        let running = RunningWatcher(try RuleFileWatcher(paths: [file], loop: .testLoop, debounce: .milliseconds(50)))
        let temporary = directory.write(".a.yaml.tmp", "version: 1\nrules: []\n")
        #expect(rename(temporary, file) == 0)
        try await running.waitForReports(1, "a report after a rename over the file")
        try await running.stop()
    }

    @Test func newYAMLFileInAWatchedDirectoryIsReportedOtherFilesAreNot() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let running = RunningWatcher(
            try RuleFileWatcher(paths: [directory.path], loop: .testLoop, debounce: .milliseconds(50)))
        writeInPlace(directory.file("notes.txt"))
        writeInPlace(directory.file(".#b.yaml"))
        writeInPlace(directory.file("b.yaml~"))
        try await Task.sleep(for: Self.quietWindow)
        #expect(running.counter.count == 0, "non-rule files are ignored")
        writeInPlace(directory.file("b.yaml"))
        try await running.waitForReports(1, "a report for a new b.yaml")
        #expect(unlink(directory.file("b.yaml")) == 0)
        try await running.waitForReports(2, "a report for a deleted b.yaml")
        try await running.stop()
    }

    @Test func burstIsCoalescedIntoOneReport() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml")
        let running = RunningWatcher(try RuleFileWatcher(paths: [file], loop: .testLoop, debounce: .milliseconds(150)))
        for index in 0..<20 { writeInPlace(file, "version: 1\n# \(index)\n") }
        chmod(file, 0o600)
        try await running.waitForReports(1, "the burst's report")
        try await Task.sleep(for: Self.quietWindow)
        #expect(running.counter.count == 1)
        try await running.stop()
    }

    @Test func nothingHappensNoReport() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml")
        // A loop of its own, so that only the watcher's wait can wake its thread.
        let loop = try ThreadExecutor.spawn(name: "netrules-rules")
        defer { loop.stop() }
        let running = RunningWatcher(try RuleFileWatcher(paths: [file], loop: loop, debounce: .milliseconds(50)))
        // A sibling that is not watched changes; the watched file does not.
        writeInPlace(directory.file("other.yaml"))
        try await Task.sleep(for: Self.quietWindow)
        #expect(running.counter.count == 0)
        // Idle means the loop asleep in poll(2) with no timeout: the thread does not wake at all.
        let switches = try #require(watcherThreadContextSwitches())
        try await Task.sleep(for: Self.quietWindow)
        #expect(watcherThreadContextSwitches() == switches)
        try await running.stop()
    }

    @Test func fileThatDoesNotExistYetIsReportedWhenCreated() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("later.yaml")
        let running = RunningWatcher(try RuleFileWatcher(paths: [file], loop: .testLoop, debounce: .milliseconds(50)))
        writeInPlace(file)
        try await running.waitForReports(1, "a report when the file appears")
        try await running.stop()
    }

    @Test func symlinkTargetChangesAreReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(mkdir(directory.file("managed"), 0o755) == 0)
        let target = directory.write("managed/real.yaml")
        let link = directory.file("a.yaml")
        #expect(symlink(target, link) == 0)
        let running = RunningWatcher(try RuleFileWatcher(paths: [link], loop: .testLoop, debounce: .milliseconds(50)))
        writeInPlace(target)
        try await running.waitForReports(1, "a report for a change of the symlink's target")
        try await running.stop()
    }

    @Test func cancellationStopsTheThreadAndClosesItsDescriptors() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let inotifyBefore = openDescriptorCount(matching: "inotify")
        let eventfdBefore = openDescriptorCount(matching: "eventfd")
        let watcher = try RuleFileWatcher(paths: [directory.path], loop: .testLoop)
        #expect(openDescriptorCount(matching: "inotify") == inotifyBefore + 1)
        let running = RunningWatcher(watcher)
        try await running.stop()
        #expect(openDescriptorCount(matching: "inotify") == inotifyBefore)
        #expect(openDescriptorCount(matching: "eventfd") == eventfdBefore)
        let (_, continuation) = AsyncStream.makeStream(of: Void.self)
        await #expect(throws: SystemCallError.self, "one run per watcher") {
            try await watcher.run(reporting: continuation)
        }
    }

    @Test func missingDirectoryIsAnError() {
        #expect(throws: SystemCallError.self) {
            try RuleFileWatcher(paths: ["/nonexistent/netrules/a.yaml"], loop: .testLoop)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RuleWatchSetTests {
    @Test func parsesInotifyEventsFromBytes() {
        var bytes: [UInt8] = []
        func append(watch: Int32, mask: UInt32, cookie: UInt32, name: String, padded: Int) {
            withUnsafeBytes(of: watch) { bytes += $0 }
            withUnsafeBytes(of: mask) { bytes += $0 }
            withUnsafeBytes(of: cookie) { bytes += $0 }
            withUnsafeBytes(of: UInt32(padded)) { bytes += $0 }
            bytes += Array(name.utf8) + [UInt8](repeating: 0, count: padded - name.utf8.count)
        }
        append(watch: 1, mask: UInt32(IN_MOVED_TO), cookie: 7, name: "a.yaml", padded: 16)
        append(watch: 2, mask: UInt32(IN_DELETE_SELF), cookie: 0, name: "", padded: 0)
        bytes += [1, 2, 3]  // a truncated tail is ignored
        let events = bytes.withUnsafeBytes { InotifyEvent.parse($0) }
        #expect(
            events == [
                InotifyEvent(watch: 1, mask: UInt32(IN_MOVED_TO), cookie: 7, name: "a.yaml"),
                InotifyEvent(watch: 2, mask: UInt32(IN_DELETE_SELF), cookie: 0, name: ""),
            ])
    }

    @Test(arguments: [
        ("a.yaml", UInt32(IN_CLOSE_WRITE), true),
        ("b.yml", UInt32(IN_MOVED_TO), true),
        ("notes.txt", UInt32(IN_CLOSE_WRITE), false),
        (".a.yaml.swp", UInt32(IN_CLOSE_WRITE), false),
        (".#a.yaml", UInt32(IN_CREATE), false),
        ("a.yaml~", UInt32(IN_CREATE), false),
        ("dir.yaml", UInt32(IN_CREATE | IN_ISDIR), false),
        ("", UInt32(IN_DELETE_SELF), true),
        ("", UInt32(IN_IGNORED), true),
        ("", UInt32(IN_ATTRIB | IN_ISDIR), true),
        ("", UInt32(IN_CLOSE_WRITE | IN_ISDIR), false),
    ])
    func ruleDirectoryFilter(name: String, mask: UInt32, relevant: Bool) {
        var set = RuleWatchSet()
        set.planned = ["/etc/netrules": .init(yamlFiles: true)]
        set.watches = [3: ["/etc/netrules"]]
        #expect(set.isRelevant(InotifyEvent(watch: 3, mask: mask, cookie: 0, name: name)) == relevant)
    }

    @Test func fileFilterMatchesOnlyItsName() {
        var set = RuleWatchSet()
        set.planned = ["/srv": .init(names: ["a.yaml"])]
        set.watches = [4: ["/srv"]]
        #expect(set.isRelevant(InotifyEvent(watch: 4, mask: UInt32(IN_MOVED_TO), cookie: 0, name: "a.yaml")))
        #expect(!set.isRelevant(InotifyEvent(watch: 4, mask: UInt32(IN_MOVED_TO), cookie: 0, name: "b.yaml")))
        #expect(!set.isRelevant(InotifyEvent(watch: 9, mask: UInt32(IN_MOVED_TO), cookie: 0, name: "a.yaml")))
        #expect(set.isRelevant(InotifyEvent(watch: -1, mask: UInt32(IN_Q_OVERFLOW), cookie: 0, name: "")))
        set.forget(InotifyEvent(watch: 4, mask: UInt32(IN_IGNORED), cookie: 0, name: ""))
        #expect(set.unwatched == ["/srv"])
    }

    @Test func splitsPaths() {
        #expect(RuleWatchSet.split("/etc/netrules/a.yaml") == ("/etc/netrules", "a.yaml"))
        #expect(RuleWatchSet.split("/a.yaml") == ("/", "a.yaml"))
        #expect(RuleWatchSet.split("a.yaml") == (".", "a.yaml"))
    }
}
