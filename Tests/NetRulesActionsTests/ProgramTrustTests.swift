@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// The runner refuses, as root, a `run:` program, script or plugin that someone other than root can
/// change (issue 34, item 6): the action fails with the path and the mode, nothing runs. A
/// root-owned 0755 one runs, and so does anything run as another user (`user:`).
@Suite(
    .timeLimit(.minutes(1)), .serialized,
    .enabled(if: geteuid() == 0, "the runner refuses untrusted programs only as root, and only root can set up owners"))
struct ProgramTrustTests {
    /// A 0755 directory of root's with a program that records that it ran.
    final class Sandbox {
        let directory = TemporaryDirectory()
        var ran: String { directory.file("ran") }

        init() {
            chmod(directory.path, 0o755)
        }

        /// A script at `name` with `mode` (set with chmod, past the umask) that touches `ran`.
        @discardableResult
        func program(_ name: String, mode: mode_t, in subdirectory: String? = nil) -> String {
            let path = directory.file((subdirectory.map { $0 + "/" } ?? "") + name)
            Fixtures.writeFile(path, Array("#!/bin/sh\necho ran >> \(ran)\n".utf8), mode: 0o700)
            chmod(path, mode)
            return path
        }
    }

    private static func run(
        _ command: String, user: ActionUser? = nil, environment: [(name: String, value: Template)] = []
    ) async -> ActionResult {
        let harness = RunnerHarness()
        let firing = Fixtures.firing(
            rule: "vpn",
            actions: [
                RunnerHarness.spec(
                    RunAction(
                        command: Fixtures.command(command), timeout: .seconds(10), environment: environment,
                        user: user))
            ])
        await harness.runner.submit(firing, wallTime: "2025-01-02T03:04:05Z")
        let results = await harness.settledResults(expecting: 1)
        return results.first ?? ActionResult(rule: "vpn", edge: .enter, index: 0, kind: "run")
    }

    private static func failure(_ result: ActionResult) -> ActionError? {
        if case .failed(let error) = result.outcome { error } else { nil }
    }

    @Test func aWorldWritableProgramIsRefusedWithItsPathAndMode() async {
        let sandbox = Sandbox()
        let program = sandbox.program("vpn-up", mode: 0o777)
        let result = await Self.run("\(program) now")
        #expect(Self.failure(result)?.code == .untrustedProgram, "\(result)")
        #expect(
            Self.failure(result)?.message
                == "refusing program \(program): it is writable by other users (mode 0777, owner root); "
                + "run: chmod go-w \(program)")
        #expect(
            result.description.contains("refusing program \(program): it is writable by other users (mode 0777"),
            "the history and the log show why: \(result.description)")
        #expect(!Fixtures.exists(sandbox.ran), "the program ran")
    }

    @Test func aRootOwnedProgramOthersCannotWriteRuns() async {
        let sandbox = Sandbox()
        let program = sandbox.program("vpn-up", mode: 0o755)
        let result = await Self.run("\(program) now")
        #expect(result.isSuccess, "\(result)")
        #expect(Fixtures.readFile(sandbox.ran) == Array("ran\n".utf8))
    }

    @Test func aProgramFoundOnPATHOrStartedByTheShellIsCheckedToo() async {
        let sandbox = Sandbox()
        sandbox.program("vpn-up", mode: 0o775)
        let path = [(name: "PATH", value: Fixtures.template("\(sandbox.directory.path):/usr/bin:/bin"))]
        // Directly started, found on the action's PATH; then the same through the shell (a pipe).
        for command in ["vpn-up", "vpn-up | cat"] {
            let result = await Self.run(command, environment: path)
            #expect(Self.failure(result)?.code == .untrustedProgram, "\(command): \(result)")
            #expect(Self.failure(result)?.message.contains("writable by group") == true, "\(result)")
        }
        #expect(!Fixtures.exists(sandbox.ran))
    }

    @Test func aScriptAnInterpreterRunsIsChecked() async {
        let sandbox = Sandbox()
        let script = sandbox.program("up.sh", mode: 0o666)
        let refused = await Self.run("sh -e \(script)")
        #expect(
            Self.failure(refused)?.message.hasPrefix("refusing program \(script): it is writable by other users")
                == true, "\(refused)")
        // `sh -c` reads its program from the command line, not from a file.
        let inline = await Self.run("sh -c 'echo \(script)'")
        #expect(inline.isSuccess, "\(inline)")
        #expect(!Fixtures.exists(sandbox.ran))
    }

    @Test func aDirectoryOthersCanWriteIsRefusedAndRootsStickyOneIsNot() async {
        let sandbox = Sandbox()
        let shared = sandbox.directory.file("shared")
        #expect(mkdir(shared, 0o755) == 0 && chmod(shared, 0o777) == 0)
        let program = sandbox.program("vpn-up", mode: 0o755, in: "shared")
        let refused = await Self.run(program)
        #expect(
            Self.failure(refused)?.message
                == "refusing program \(program): its directory \(shared) is writable by other users "
                + "(mode 0777, owner root); run: chmod go-w \(shared)", "\(refused)")
        // Sticky and root's, like /tmp: others may add files but not replace root's.
        #expect(chmod(shared, 0o1777) == 0)
        let allowed = await Self.run(program)
        #expect(allowed.isSuccess, "\(allowed)")
        // Sticky but another user's: that user can replace the program.
        #expect(chown(shared, 65534, 65534) == 0)
        let owned = await Self.run(program)
        #expect(Self.failure(owned)?.message.contains("its directory \(shared) is owned by") == true, "\(owned)")
    }

    @Test func anActionAsAnotherUserRunsWhatThatUserCanChange() async {
        let sandbox = Sandbox()
        // nobody's own file: an action as nobody runs it (the refusal is for root only).
        let program = sandbox.program("notify", mode: 0o777)
        #expect(chmod(sandbox.directory.path, 0o777) == 0, "so that nobody can write `ran`")
        let result = await Self.run(program, user: .named("nobody"))
        #expect(result.isSuccess, "\(result)")
        #expect(Fixtures.readFile(sandbox.ran) == Array("ran\n".utf8))
    }

    @Test func aWorldWritablePluginIsRefusedAtRunTimeAsRoot() async {
        let sandbox = Sandbox()
        let path = sandbox.program("netrules-action-open", mode: 0o777)
        let action = PluginAction(name: "open", options: .null, timeout: .seconds(10), executablePath: path)
        let result = await PluginExecutor(loop: .testLoop, directories: []).execute(
            action, in: Fixtures.context(Fixtures.firing()),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "open"))
        #expect(
            Self.failure(result)?.message
                == "refusing plugin \(path): it is writable by other users (mode 0777, owner root); "
                + "run: chmod go-w \(path)", "\(result)")
        #expect(!Fixtures.exists(sandbox.ran))
    }
}
