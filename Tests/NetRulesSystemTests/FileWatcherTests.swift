@preconcurrency import Glibc
import NetRulesSystem
import Testing

@Suite(.timeLimit(.minutes(1)))
struct FileWatcherTests {
    /// A fresh directory under /tmp, removed with its files when the test ends.
    private struct Directory: ~Copyable {
        let path = "/tmp/nrs-watch-\(UInt32.random(in: 0...UInt32.max))"
        init() { mkdir(path, 0o700) }
        func write(_ name: String) {
            let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            close(fd)
        }
        deinit {
            if let directory = opendir(path) {
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) {
                        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if name != "." && name != ".." { unlink(path + "/" + name) }
                }
                closedir(directory)
            }
            rmdir(path)
        }
    }

    @Test func reportsEventsInAWatchedDirectory() throws {
        let directory = Directory()
        let files = try FileWatcher()
        defer { files.close() }
        let watch = try files.addWatch(directory.path, mask: UInt32(IN_CREATE | IN_CLOSE_WRITE))
        directory.write("a.yaml")
        guard case .events(let events) = try files.wait(wake: nil, deadline: .now + .seconds(5)) else {
            Issue.record("no event")
            return
        }
        #expect(events.contains(InotifyEvent(watch: watch, mask: UInt32(IN_CREATE), cookie: 0, name: "a.yaml")))
        // Drained: nothing is left queued for the next read.
        #expect(try files.readEvents().filter { $0.mask & UInt32(IN_CREATE) != 0 }.isEmpty)
    }

    @Test func aQuietWaitEndsAtTheDeadlineOrWhenWoken() throws {
        let directory = Directory()
        let files = try FileWatcher()
        defer { files.close() }
        _ = try files.addWatch(directory.path, mask: UInt32(IN_CREATE))
        #expect(try files.wait(wake: nil, deadline: .now + .milliseconds(20)) == .timedOut)
        let wake = try WakeEvent()
        defer { wake.close() }
        wake.signal()
        #expect(try files.wait(wake: wake, deadline: nil) == .woken)
    }

    @Test func watchingAMissingDirectoryFails() throws {
        let files = try FileWatcher()
        defer { files.close() }
        #expect(throws: SystemCallError.self) { try files.addWatch("/nonexistent/netrules", mask: UInt32(IN_CREATE)) }
    }

    @Test func aClosedWatcherRefusesToWait() throws {
        let files = try FileWatcher()
        files.close()
        #expect(throws: SystemCallError.self) { try files.wait(wake: nil, deadline: .now) }
    }
}
