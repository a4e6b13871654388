@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// `write:` with `owner:` (issue 37, item 5): the root daemon gives the file to that account, with
/// the rule's mode, and gives away nothing else: no file reached through a symbolic link someone
/// else could have planted, no file with another name. The accounts are Debian's own `daemon`
/// and `nobody`, and the group `daemon`, so no user is created.
@Suite(
    .timeLimit(.minutes(1)), .enabled(if: geteuid() == 0, "needs root: only root gives files to other accounts"))
struct WriteOwnerTests {
    let daemon: UserAccount
    let nobody: UserAccount

    init() throws {
        daemon = try #require(try UserAccount.named("daemon"))
        nobody = try #require(try UserAccount.named("nobody"))
    }

    private func write(
        _ path: String, _ text: String = "ssid={{ssid}}\n", owner: String?, mode: UInt32 = 0o644, append: Bool = false
    ) async -> ActionResult {
        let action = WriteAction(
            path: path, content: Fixtures.template(text), append: append, mode: mode,
            owner: owner.map { FileOwner($0)! })
        return await WriteExecutor(loop: .testLoop).execute(
            action, in: Fixtures.context(Fixtures.firing(facts: [.ssid: "Office"])),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "write"))
    }

    private static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    @Test func aReplacedFileBelongsToTheOwnerAndItsPrimaryGroupWithTheMode() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("state/last")
        let result = await write(path, owner: "daemon", mode: 0o640)
        #expect(result.isSuccess, "\(result)")
        let info = try #require(Self.status(path))
        #expect((info.st_uid, info.st_gid) == (daemon.uid, daemon.gid))
        #expect(info.st_mode & 0o7777 == 0o640)
        #expect(Fixtures.readFile(path) == Array("ssid=Office\n".utf8))
        #expect(result.account == "daemon" && result.group == "daemon")
        #expect("\(result)".contains("succeeded, owner daemon:daemon"), "\(result)")

        // Replacing makes a new file each time: it is the owner's again, with the mode it had.
        let again = await write(path, "second", owner: "daemon", mode: 0o600)
        #expect(again.isSuccess, "\(again)")
        let replaced = try #require(Self.status(path))
        #expect((replaced.st_uid, replaced.st_gid, replaced.st_mode & 0o7777) == (daemon.uid, daemon.gid, 0o640))
        #expect(Fixtures.readFile(path) == Array("second".utf8))
    }

    @Test func anAppendedFileGetsTheNamedGroupAndTheMode() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log/events.log")
        for _ in 0..<2 {
            let result = await write(path, owner: "nobody:daemon", mode: 0o600, append: true)
            #expect(result.isSuccess, "\(result)")
            #expect(result.account == "nobody" && result.group == "daemon")
        }
        let info = try #require(Self.status(path))
        #expect((info.st_uid, info.st_gid, info.st_mode & 0o7777) == (nobody.uid, daemon.gid, 0o600))
        #expect(Fixtures.readFile(path) == Array("ssid=Office\nssid=Office\n".utf8))
    }

    @Test func aFileOfRootsWithOneNameIsGivenAwayOnAppendAndKeepsItsMode() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.log")
        Fixtures.writeFile(path, Array("before\n".utf8), mode: 0o644)
        let result = await write(path, owner: "daemon", append: true)
        #expect(result.isSuccess, "\(result)")
        let info = try #require(Self.status(path))
        #expect((info.st_uid, info.st_gid, info.st_mode & 0o7777) == (daemon.uid, daemon.gid, 0o644))
        #expect(Fixtures.readFile(path) == Array("before\nssid=Office\n".utf8))
    }

    /// The owner links a file of root's (here a stand-in for /etc/shadow) into their directory:
    /// appending to it would give it to them.
    @Test func aHardLinkToAnotherFileIsNotGivenAway() async throws {
        let directory = TemporaryDirectory()
        let secret = directory.file("shadow")
        Fixtures.writeFile(secret, Array("root:secret\n".utf8), mode: 0o600)
        let path = directory.file("events.log")
        #expect(link(secret, path) == 0)
        let result = await write(path, owner: "nobody", append: true)
        guard case .failed(let error) = result.outcome else { Issue.record("a hard link was given away"); return }
        #expect(error.message.contains("has another name (a hard link)"), "\(error)")
        let info = try #require(Self.status(secret))
        #expect((info.st_uid, info.st_mode & 0o7777) == (0, 0o600))
        #expect(Fixtures.readFile(secret) == Array("root:secret\n".utf8))
    }

    @Test(arguments: [false, true])
    func aSymbolicLinkAtThePathIsRefused(append: Bool) async throws {
        let directory = TemporaryDirectory()
        let target = directory.file("target")
        Fixtures.writeFile(target, Array("root's\n".utf8), mode: 0o600)
        let path = directory.file("link")
        #expect(symlink(target, path) == 0)
        let result = await write(path, owner: "nobody", append: append)
        guard case .failed(let error) = result.outcome else { Issue.record("wrote through a link"); return }
        #expect(error.message.contains("it is a symbolic link"), "\(error)")
        let info = try #require(Self.status(target))
        #expect((info.st_uid, info.st_mode & 0o7777) == (0, 0o600))
        #expect(Fixtures.readFile(target) == Array("root's\n".utf8))
    }

    /// The owner's own directory (`~nobody/.local`) holds a link they made to a directory of
    /// root's: the file must not land there, theirs.
    @Test(arguments: [false, true])
    func aSymbolicLinkInADirectoryTheOwnerCanChangeIsRefused(append: Bool) async throws {
        let directory = TemporaryDirectory()
        let home = directory.file("home")
        let roots = directory.file("etc")
        #expect(mkdir(home, 0o755) == 0 && mkdir(roots, 0o755) == 0)
        #expect(chown(home, nobody.uid, nobody.gid) == 0)
        #expect(symlink(roots, home + "/state") == 0)
        let result = await write(home + "/state/hosts", owner: "nobody", append: append)
        guard case .failed(let error) = result.outcome else { Issue.record("followed the owner's link"); return }
        #expect(
            error.message.contains("a directory on its path is a symbolic link someone other than root"), "\(error)")
        #expect(!Fixtures.exists(roots + "/hosts"))
        #expect(result.account == "nobody")
    }

    /// A link only root could have made (in root's own directory, as `/var/run` → `/run`) is
    /// followed; the directories after it are made as before.
    @Test func aSymbolicLinkOnlyRootCouldChangeIsFollowed() async throws {
        let directory = TemporaryDirectory()
        let real = directory.file("real")
        #expect(mkdir(real, 0o755) == 0)
        #expect(symlink("real", directory.file("alias")) == 0)
        let result = await write(directory.file("alias/sub/state"), owner: "daemon", mode: 0o640)
        #expect(result.isSuccess, "\(result)")
        let info = try #require(Self.status(real + "/sub/state"))
        #expect((info.st_uid, info.st_mode & 0o7777) == (daemon.uid, 0o640))
    }

    @Test func aFileThatWasThereLosesSetuidAndWorldWrite() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("state")
        Fixtures.writeFile(path, [], mode: 0o644)
        #expect(chmod(path, 0o4766) == 0)
        let result = await write(path, owner: "nobody")
        #expect(result.isSuccess, "\(result)")
        let info = try #require(Self.status(path))
        #expect((info.st_uid, info.st_mode & 0o7777) == (nobody.uid, 0o764))
    }

    @Test func anOwnerOrGroupThereIsNoLongerFailsAndWritesNothing() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("state")
        let noUser = await write(path, owner: "nrtest-no-such-account")
        #expect(
            "\(noUser)".contains(
                "failed: there is no user 'nrtest-no-such-account' on this system (owner: nrtest-no-such-account)"),
            "\(noUser)")
        let noGroup = await write(path, owner: "nobody:nrtest-no-such-group")
        #expect(
            "\(noGroup)".contains(
                "failed: there is no group 'nrtest-no-such-group' on this system (owner: nobody:nrtest-no-such-group)"),
            "\(noGroup)")
        #expect(!Fixtures.exists(path))
    }

    /// This machine has no graphical session: `owner: active` skips the write, as `user: active`
    /// skips a command, and the firing's later actions still run.
    @Test func activeWithNoGraphicalSessionSkipsTheWrite() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("state")
        let result = await write(path, owner: "active")
        guard case .skipped(let reason) = result.outcome else { Issue.record("\(result)"); return }
        #expect(reason.contains("(owner: active)"), "\(reason)")
        #expect(result.letsFiringContinue)
        #expect(!Fixtures.exists(path))
    }
}
