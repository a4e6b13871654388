import Foundation
@preconcurrency import Glibc
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// The daemon creates its state directory as `FileManager.createDirectory` did with intermediate
/// directories and mode 0700: the same directories, the same modes, the same failures, whether
/// the state directory lock (first at start) or the daemon makes it.
@Suite(.timeLimit(.minutes(1)))
struct StateDirectoryCreationTests {
    /// What one way of creating `relative` under a fresh directory did: whether it threw, and the
    /// mode of every path below the root that exists afterwards.
    struct Outcome: Equatable {
        var threw: Bool
        var modes: [String: mode_t]
    }

    static func outcome(
        _ relative: String, setUp: (String) -> Void, create: (String) throws -> Void
    ) -> Outcome {
        let root = TemporaryDirectory("netrules-statedir")
        defer { root.remove() }
        setUp(root.path)
        var threw = false
        do { try create(root.path + "/" + relative) } catch { threw = true }
        var modes: [String: mode_t] = [:]
        var prefix = root.path
        for component in relative.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            if lstat(prefix, &info) == 0 { modes[String(prefix.dropFirst(root.path.count))] = info.st_mode }
        }
        return Outcome(threw: threw, modes: modes)
    }

    static let cases: [(String, @Sendable (String) -> Void)] = [
        ("state", { _ in }),
        ("a/b/state", { _ in }),
        ("a/b/state/", { _ in }),
        ("kept/state", { root in mkdir(root + "/kept", 0o750) }),
        ("kept", { root in mkdir(root + "/kept", 0o711) }),
        ("file", { root in close(creat(root + "/file", 0o600)) }),
        ("file/state", { root in close(creat(root + "/file", 0o600)) }),
        (
            "link/state",
            { root in
                mkdir(root + "/target", 0o755)
                symlink(root + "/target", root + "/link")
            }
        ),
    ]

    @Test(arguments: 0..<cases.count)
    func createsWhatFileManagerCreated(index: Int) {
        let (relative, setUp) = Self.cases[index]
        let foundation = Self.outcome(relative, setUp: setUp) { path in
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let daemon = Self.outcome(relative, setUp: setUp) { path in try Daemon.createStateDirectory(path) }
        #expect(daemon == foundation, "\(relative)")
        let lock = Self.outcome(relative, setUp: setUp) { path in try StateDirectoryLock(directory: path).release() }
        #expect(lock == foundation, "the lock, \(relative)")
    }

    /// The lock runs first at start, so its directories are the state directory's: exactly 0700
    /// even under a umask that takes the owner's search bit (0100, which touches no file another
    /// test might create meanwhile but an executable one, and root runs it still).
    @Test func theLockCreatesTheStateDirectoryWithItsExactMode() throws {
        let root = TemporaryDirectory("netrules-statedir")
        defer { root.remove() }
        let previous = umask(0o100)
        let lock: StateDirectoryLock
        do {
            defer { umask(previous) }
            lock = try StateDirectoryLock(directory: root.path + "/a/b")
        }
        lock.release()
        for path in [root.path + "/a", root.path + "/a/b"] {
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o700, "\(path)")
        }
    }

    @Test func everyCreatedDirectoryIsPrivate() throws {
        let root = TemporaryDirectory("netrules-statedir")
        defer { root.remove() }
        try Daemon.createStateDirectory(root.path + "/a/b")
        for path in [root.path + "/a", root.path + "/a/b"] {
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o700, "\(path)")
        }
    }
}
