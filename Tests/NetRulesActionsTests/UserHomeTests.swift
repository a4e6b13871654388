@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// `~name` in `run:`'s `cwd:` (issue 37, item 5): that account's home, as the shell reads it; an
/// account gone since the rules loaded fails the action instead of running it somewhere else.
@Suite(.timeLimit(.minutes(1)))
struct UserHomeTests {
    /// This process's own account: its home exists and it may enter it.
    let me: UserAccount

    init() throws {
        me = try #require(try UserAccount.withID(geteuid()))
    }

    @Test func tildeNameIsThatAccountsHome() {
        #expect(PathExpansion.expandingTilde("~\(me.name)") == me.home)
        #expect(PathExpansion.expandingTilde("~\(me.name)/notes") == me.home + "/notes")
        #expect(PathExpansion.expandingTilde("~") == PathExpansion.homeDirectory())
        #expect(PathExpansion.expandedTilde("~nrtest-no-such-account/x") == nil)
        #expect(PathExpansion.expandingTilde("~nrtest-no-such-account/x") == "~nrtest-no-such-account/x")
        #expect(PathExpansion.userName(in: "~alice/x") == "alice")
        #expect(PathExpansion.userName(in: "~/x") == nil)
    }

    private func run(_ command: String, in directory: String) async -> ActionResult {
        let action = RunAction(command: Fixtures.command(command), timeout: .seconds(10), workingDirectory: directory)
        return await RunExecutor(loop: .testLoop).execute(
            action, in: Fixtures.context(Fixtures.firing()),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
    }

    @Test func aCommandRunsInTheHomeItsCwdNames() async {
        let result = await run("pwd", in: "~\(me.name)")
        #expect(result.isSuccess, "\(result)")
        #expect(result.output == "stdout: \(me.home)")
        #expect(result.account == nil, "no user: named no account")
    }

    /// The history and the log name whom `user:` ran the action as (`ActionResult.account`).
    @Test(.enabled(if: geteuid() == 0, "needs root to run as another user"))
    func aCommandAndAPluginWithUserNameTheirAccount() async throws {
        let command = RunAction(command: Fixtures.command("true"), timeout: .seconds(10), user: .named("nobody"))
        let ran = await RunExecutor(loop: .testLoop).execute(
            command, in: Fixtures.context(Fixtures.firing()),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
        #expect(ran.isSuccess && ran.account == "nobody", "\(ran)")
        #expect("\(ran)".contains("succeeded, exit status 0, as nobody"), "\(ran)")

        let directory = TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let path = directory.file("netrules-action-nothing")
        Fixtures.writeFile(path, Array("#!/bin/sh\nexit 0\n".utf8), mode: 0o755)
        let plugin = PluginAction(
            name: "nothing", options: .null, timeout: .seconds(10), executablePath: path, user: .named("nobody"))
        let started = await PluginExecutor(loop: .testLoop, directories: []).execute(
            plugin, in: Fixtures.context(Fixtures.firing()),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "nothing"))
        #expect(started.isSuccess && started.account == "nobody", "\(started)")
    }

    @Test func aCwdOfAnAccountThereIsNoLongerFailsTheAction() async {
        let result = await run("pwd", in: "~nrtest-no-such-account/work")
        guard case .failed(let error) = result.outcome else { Issue.record("\(result)"); return }
        #expect(error.code == .userUnavailable)
        #expect(
            error.message
                == "there is no user 'nrtest-no-such-account' on this system (cwd: ~nrtest-no-such-account/work)")
        #expect(result.output == nil, "nothing ran")
    }
}
