@preconcurrency import Glibc
import NetRulesTesting
import Testing

@testable import NetRulesSystem

/// The one lookup in each database (`sys_getpw`, `sys_getgr`), by name or by id, and what each
/// caller makes of an id with no entry.
@Suite(.timeLimit(.minutes(1)))
struct UserDatabaseTests {
    /// An id no account or group has on these machines.
    static let unnamed: UInt32 = 3_999_999

    @Test func anAccountIsTheSameByNameAndByID() throws {
        let byID = try #require(try sys_getpw(uid: 0).get())
        let byName = try #require(try sys_getpw(name: byID.name).get())
        #expect(byID.name == "root" && byID.uid == 0 && byID.gid == 0 && byID.home == "/root")
        #expect(byName == byID)
        #expect(try sys_getpw(uid: Self.unnamed).get() == nil)
        #expect(try sys_getpw(name: "nrtest-no-such-account").get() == nil)
    }

    @Test func aGroupIsTheSameByNameAndByID() throws {
        let byID = try #require(try sys_getgr(gid: 0).get())
        #expect(byID == (name: "root", gid: 0))
        #expect(try sys_getgr(name: "root").get().map { $0 == byID } == true)
        #expect(try sys_getgr(gid: Self.unnamed).get() == nil)
        #expect(try sys_getgr(name: "nrtest-no-such-group").get() == nil)
    }

    @Test func anIDWithoutAnEntryIsNamedByItsNumber() throws {
        #expect(UserGroup.withID(Self.unnamed) == UserGroup(name: "3999999", gid: Self.unnamed))
        #expect(UserGroup.withID(0).name == "root")
        #expect(try UserAccount.withID(Self.unnamed) == nil)
    }

    @Test(.enabled(if: geteuid() == 0, "chown needs root"))
    func aFileOfAnUnnamedOwnerIsNamedByItsNumbers() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml", mode: 0o664)
        #expect(chown(file, Self.unnamed, Self.unnamed) == 0)
        let problem = FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile) ?? ""
        #expect(problem.contains("owned by uid 3999999"), "\(problem)")
        #expect(problem.contains("writable by group gid 3999999"), "\(problem)")
    }
}
