@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// A `run:` command of plain words starts without `/bin/sh`; the same command through the shell
/// (the executor's switch turned off) must look the same to the program and to the runner.
///
/// The probe is a script that records what a program can see of how it was started: its
/// arguments, its environment as exec'd (`/proc/PID/environ`, sorted: dash's export order is its
/// hash order), its standard input, its working directory, umask, open descriptors, signal
/// mask and ignored signals (as a program it starts inherits them: the probe's own shell blocks
/// every signal for an instant around each fork), limits, and whether it is in a new process group. Two things differ
/// and cannot be hidden: its parent (the shell, or the daemon) and so which of the two leads the
/// group; the probe records only that one of them does.
@Suite(.timeLimit(.minutes(5)))
struct DirectCommandTests {
    /// What one run left behind: the result's visible fields and the probe's files.
    struct Observation: Equatable, CustomStringConvertible {
        var outcome: String
        var exitStatus: Int32?
        var signal: Int32?
        var output: String?
        var files: [String: [UInt8]]

        var description: String {
            let listed = files.sorted { $0.key < $1.key }.map {
                "\($0.key): \(TerminalText.escaped(bytes: $0.value))"
            }
            return "\(outcome) exit=\(exitStatus.map(String.init) ?? "-") signal=\(signal.map(String.init) ?? "-")"
                + " output=\(output ?? "-")\n" + listed.joined(separator: "\n")
        }
    }

    static let probeFiles = [
        "args", "environ", "stdin", "cwd", "umask", "fds", "signals", "limits", "group", "parent-environ",
    ]

    /// A directory with `bin/probe` and the files a run writes.
    final class Sandbox: Sendable {
        let directory = TemporaryDirectory()
        var bin: String { directory.file("bin") }
        var out: String { directory.file("out") }

        init() {
            mkdir(directory.file("bin"), 0o755)
            mkdir(directory.file("out"), 0o755)
            // `$$` is the probe itself; its environment and state as exec'd come from /proc, so
            // nothing the probe's own shell does in between can blur them.
            Fixtures.writeFile(
                directory.file("bin/probe"),
                Array(
                    """
                    #!/bin/sh
                    out=\(directory.file("out"))
                    printf '%s\\0' "$0" "$@" > "$out/args"
                    tr '\\0' '\\n' < /proc/$$/environ | LC_ALL=C sort > "$out/environ"
                    cat > "$out/stdin"
                    readlink /proc/$$/cwd > "$out/cwd"
                    umask > "$out/umask"
                    ls /proc/$$/fd > "$out/fds"
                    grep -E '^Sig(Blk|Ign)' /proc/self/status > "$out/signals"
                    cat /proc/$$/limits > "$out/limits"
                    set -- $(cut -d ')' -f 2 /proc/$$/stat)
                    pgrp=$3; ppid=$2
                    if [ "$pgrp" = $$ ] || [ "$pgrp" = "$ppid" ]; then
                        echo "a new group led by the command or its shell" > "$out/group"
                    else
                        echo "pgrp $pgrp, pid $$, ppid $ppid" > "$out/group"
                    fi
                    echo to-stdout; echo to-stderr >&2
                    case "$PROBE_SIGNAL" in ?*) kill -"$PROBE_SIGNAL" $$;; esac
                    exit "${PROBE_EXIT:-0}"

                    """.utf8), mode: 0o755)
        }

        func reset() {
            for name in DirectCommandTests.probeFiles { unlink(out + "/" + name) }
        }

        func files() -> [String: [UInt8]] {
            var files: [String: [UInt8]] = [:]
            for name in DirectCommandTests.probeFiles { files[name] = Fixtures.readFile(out + "/" + name) }
            return files
        }
    }

    private static func context(
        _ sandbox: Sandbox, ssid: FactValue = "Office", extra: [String: String] = [:]
    ) -> ActionContext {
        var environment = [
            "PATH": sandbox.bin + ":/usr/bin:/bin", "LANG": "C", "X-Y": "not a shell name", "IFS": "x",
            "OPTIND": "5", "PPID": "7", "PWD": "/nonexistent", "BASH_FUNC_f%%": "() { :; }", "_": "/usr/bin/env",
        ]
        environment.merge(extra) { $1 }
        return Fixtures.context(Fixtures.firing(facts: [.ssid: ssid]), environment: environment)
    }

    private static func run(
        _ command: String, direct: Bool, sandbox: Sandbox, context: ActionContext, timeout: Duration = .seconds(10),
        workingDirectory: String? = nil
    ) async -> Observation {
        sandbox.reset()
        let action = RunAction(
            command: Fixtures.command(command), timeout: timeout, workingDirectory: workingDirectory ?? sandbox.out)
        var executor = RunExecutor(loop: .testLoop)
        executor.startsSimpleCommandsDirectly = direct
        let result = await executor.execute(
            action, in: context, result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
        let outcome: String =
            switch result.outcome {
            case .succeeded: "succeeded"
            case .failed(let error): "failed: \(error)"
            case .queued: "queued"
            case .skipped(let reason): "skipped: \(reason)"
            }
        return Observation(
            outcome: outcome, exitStatus: result.exitStatus, signal: result.signal, output: result.output,
            files: sandbox.files())
    }

    /// Runs `command` both ways, checks that the first really started directly, and returns both.
    private static func bothWays(
        _ command: String, sandbox: Sandbox, context: ActionContext, expectDirect: Bool = true,
        timeout: Duration = .seconds(10), workingDirectory: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (direct: Observation, shell: Observation) {
        let action = RunAction(command: Fixtures.command(command), workingDirectory: workingDirectory ?? sandbox.out)
        let start = RunExecutor(loop: .testLoop).start(
            of: action, in: context,
            environment: FiringEnvironment.entries(for: context), workingDirectory: workingDirectory ?? sandbox.out)
        if case .direct = start {
            #expect(expectDirect, "\(command) started without the shell", sourceLocation: sourceLocation)
        } else {
            #expect(!expectDirect, "\(command) went through the shell", sourceLocation: sourceLocation)
        }
        let direct = await run(
            command, direct: true, sandbox: sandbox, context: context, timeout: timeout,
            workingDirectory: workingDirectory)
        let shell = await run(
            command, direct: false, sandbox: sandbox, context: context, timeout: timeout,
            workingDirectory: workingDirectory)
        return (direct, shell)
    }

    @Test(arguments: [
        "probe a 'b c' \"d e\" '' {{ssid}} x'{{ssid}}'y \"{{ssid}}\"",
        "probe\n",
        "  probe   --opt=v\t'it'\\''s'",
    ])
    func theProgramSeesTheSameArgumentsEnvironmentInputAndProcessState(command: String) async {
        let sandbox = Sandbox()
        let (direct, shell) = await Self.bothWays(command, sandbox: sandbox, context: Self.context(sandbox))
        #expect(direct == shell, "direct:\n\(direct)\nshell:\n\(shell)")
        #expect(direct.outcome == "succeeded")
        #expect(direct.files["group"] == Array("a new group led by the command or its shell\n".utf8))
        #expect(direct.files["stdin"]?.starts(with: Array("{".utf8)) == true, "the firing document")
        let environ = String(decoding: direct.files["environ"] ?? [], as: UTF8.self)
        #expect(!environ.contains("X-Y="), "dash drops names that are not shell names")
        #expect(environ.contains("IFS= \t\n") && environ.contains("OPTIND=1\n"), "\(environ)")
        #expect(environ.contains("PWD=\(sandbox.out)\n") && environ.contains("PPID=\(getpid())\n"), "\(environ)")
    }

    /// The one filter, on a runner's sorted environment and on one in any order with repeats:
    /// invalid names dropped, the last of a repeated name winning in its first place, `IFS`,
    /// `OPTIND` and `PPID` reset, a stale `PWD` replaced by the directory's physical path.
    @Test func theEnvironmentFilterIsDashsInEitherOrder() {
        let pid = getpid()
        let sorted = ["A=1", "B=2", "IFS=x", "NETRULES_RULE=r", "OPTIND=9", "PPID=1", "PWD=/nonexistent"]
        #expect(
            DirectCommand.exportedByShell(sorted.map { Array($0.utf8) }, workingDirectory: "/")?.map {
                String(decoding: $0, as: UTF8.self)
            } == ["A=1", "B=2", "IFS= \t\n", "NETRULES_RULE=r", "OPTIND=1", "PPID=\(pid)", "PWD=/"])
        let shuffled = ["B=2", "1X=3", "A=1", "B=4", "no-equals", "X-Y=5", "A=6\u{0}cut"]
        #expect(
            DirectCommand.exportedByShell(shuffled.map { Array($0.utf8) }, workingDirectory: "/")?.map {
                String(decoding: $0, as: UTF8.self)
            } == ["B=4", "A=6", "PWD=/"])
    }

    @Test func argv0IsTheWordAsWritten() async {
        let sandbox = Sandbox()
        let (direct, shell) = await Self.bothWays(
            "head -c 100000 /proc/self/cmdline", sandbox: sandbox, context: Self.context(sandbox))
        #expect(direct == shell)
        #expect(direct.output == "stdout: head\\x00-c\\x00100000\\x00/proc/self/cmdline\\x00", "\(direct)")
    }

    @Test func anInheritedPWDIsKeptWhenItNamesTheDirectoryAndReplacedWhenNot() async {
        let sandbox = Sandbox()
        let link = sandbox.directory.file("link")
        symlink(sandbox.out, link)
        for (pwd, expected) in [
            (link, link), (sandbox.out + "/../out", sandbox.out + "/../out"), ("/tmp", sandbox.out),
            ("out", sandbox.out),
        ] {
            let context = Self.context(sandbox, extra: ["PWD": pwd])
            let (direct, shell) = await Self.bothWays(
                "probe", sandbox: sandbox, context: context, workingDirectory: link)
            #expect(direct == shell, "PWD=\(pwd)")
            let environ = String(decoding: direct.files["environ"] ?? [], as: UTF8.self)
            #expect(environ.contains("\nPWD=\(expected)\n"), "PWD=\(pwd): \(environ)")
        }
    }

    @Test(arguments: [0, 1, 3, 125, 255])
    func theExitStatusAndOutputAreReportedAlike(status: Int) async {
        let sandbox = Sandbox()
        let context = Self.context(sandbox, extra: ["PROBE_EXIT": String(status)])
        let (direct, shell) = await Self.bothWays("probe", sandbox: sandbox, context: context)
        #expect(direct == shell)
        #expect(direct.exitStatus == Int32(status))
        #expect(direct.output == "stdout: to-stdout\nstderr: to-stderr")
    }

    /// dash waits for the program and reports a signal as 128 + N, with strsignal's words.
    @Test(arguments: ["TERM", "KILL", "SEGV", "HUP", "USR1", "INT", "PIPE"])
    func aProgramKilledByASignalIsReportedAsTheShellReportsIt(signal: String) async {
        let sandbox = Sandbox()
        let context = Self.context(sandbox, extra: ["PROBE_SIGNAL": signal])
        let (direct, shell) = await Self.bothWays("probe", sandbox: sandbox, context: context)
        #expect(direct == shell, "direct:\n\(direct)\nshell:\n\(shell)")
        #expect(direct.signal == nil)
        #expect((direct.exitStatus ?? 0) > 128)
    }

    @Test func aTimeoutKillsTheGroupAlike() async {
        let sandbox = Sandbox()
        let (direct, shell) = await Self.bothWays(
            "sleep 5", sandbox: sandbox, context: Self.context(sandbox), timeout: .milliseconds(200))
        #expect(direct == shell)
        #expect(direct.outcome.contains("ran longer than"), "\(direct)")
        #expect(direct.signal == SIGTERM)
    }

    @Test func aMissingCommandIsTheShellsNotFound() async {
        let sandbox = Sandbox()
        let (direct, shell) = await Self.bothWays(
            "no-such-command-here a", sandbox: sandbox, context: Self.context(sandbox), expectDirect: false)
        #expect(direct == shell)
        #expect(direct.exitStatus == 127)
        #expect(direct.output == "stderr: sh: 1: no-such-command-here: not found")
        // A name with a '/' is not looked up first: its spawn fails, and that failure is reported
        // with its errno instead of being handed to a shell that would hide it.
        let (missing, missingShell) = await Self.bothWays(
            "./no-such-file a", sandbox: sandbox, context: Self.context(sandbox))
        #expect(
            missing.outcome
                == "failed: could not start the command: 'execve' failed: (2) No such file or directory")
        #expect(missing.exitStatus == nil)
        #expect(missingShell.output == "stderr: sh: 1: ./no-such-file: not found")
    }

    @Test func aMissingInterpreterIsReportedWithItsErrno() async {
        let sandbox = Sandbox()
        Fixtures.writeFile(sandbox.bin + "/orphan", Array("#!/nonexistent/interpreter\n".utf8), mode: 0o755)
        let (direct, shell) = await Self.bothWays("orphan a", sandbox: sandbox, context: Self.context(sandbox))
        #expect(
            direct.outcome
                == "failed: could not start the command: 'execve' failed: (2) No such file or directory")
        #expect(direct.exitStatus == nil && direct.output == nil)
        // What the shell says instead: the program, not the interpreter, is "not found".
        #expect(shell.exitStatus == 127)
        #expect(shell.output == "stderr: sh: 1: orphan: not found")
    }

    @Test func onlyENOEXECHandsADirectStartToTheShell() {
        func failure(_ code: Int32) -> Result<ChildProcessOutcome, SystemCallError> {
            .failure(SystemCallError(call: "posix_spawn", errno: Errno(rawValue: code)))
        }
        #expect(RunExecutor.shellTakesOver(failure(ENOEXEC)))
        for code in [ENOENT, EACCES, E2BIG, EAGAIN, EMFILE, ENOTDIR, ELOOP, ETXTBSY] {
            #expect(!RunExecutor.shellTakesOver(failure(code)), "errno \(code)")
        }
    }

    @Test func aFileThatCannotBeExecutedIsTheShellsPermissionDenied() async {
        let sandbox = Sandbox()
        Fixtures.writeFile(sandbox.bin + "/plain-file", Array("x\n".utf8), mode: 0o644)
        Fixtures.writeFile(sandbox.out + "/plain-file", Array("x\n".utf8), mode: 0o644)
        let (direct, shell) = await Self.bothWays(
            "plain-file", sandbox: sandbox, context: Self.context(sandbox), expectDirect: false)
        #expect(direct == shell)
        // dash 0.5.12 says "Permission denied" but exits 127 when the file was found along PATH.
        #expect(direct.exitStatus == 127)
        #expect(direct.output == "stderr: sh: 1: plain-file: Permission denied")
        let (slash, slashShell) = await Self.bothWays(
            "./plain-file", sandbox: sandbox, context: Self.context(sandbox))
        #expect(slash.outcome == "failed: could not start the command: 'execve' failed: (13) Permission denied")
        #expect(slashShell.exitStatus == 126)
        #expect(slashShell.output == "stderr: sh: 1: ./plain-file: Permission denied")
    }

    @Test func aNonExecutableFileEarlierInPATHIsSkipped() async {
        let sandbox = Sandbox()
        mkdir(sandbox.directory.file("early"), 0o755)
        Fixtures.writeFile(sandbox.directory.file("early/probe"), Array("x\n".utf8), mode: 0o644)
        let context = Self.context(
            sandbox, extra: ["PATH": sandbox.directory.file("early") + ":" + sandbox.bin + ":/usr/bin:/bin"])
        let (direct, shell) = await Self.bothWays("probe x", sandbox: sandbox, context: context)
        #expect(direct == shell)
        #expect(direct.files["args"] == Array("\(sandbox.bin)/probe\0x\0".utf8))
    }

    @Test func aScriptWithoutAnInterpreterLineRunsThroughTheShell() async {
        let sandbox = Sandbox()
        Fixtures.writeFile(
            sandbox.bin + "/no-shebang", Array("printf '%s\\0' \"$0\" \"$@\" > \(sandbox.out)/args\n".utf8), mode: 0o755
        )
        let (direct, shell) = await Self.bothWays(
            "no-shebang a 'b c'", sandbox: sandbox, context: Self.context(sandbox))
        #expect(direct == shell)
        #expect(direct.outcome == "succeeded")
        #expect(direct.files["args"] == Array("\(sandbox.bin)/no-shebang\0a\0b c\0".utf8))
    }

    @Test(arguments: HostileSSIDs.corpus)
    func aHostileValueArrivesByteExactAsOneArgumentAndRunsNothing(value: [UInt8]) async {
        let sandbox = Sandbox()
        let context = Self.context(sandbox, ssid: .text(value))
        let (direct, shell) = await Self.bothWays(
            "probe {{ssid}} '{{ssid}}' \"{{ssid}}\" x{{ssid}}", sandbox: sandbox, context: context)
        #expect(direct == shell)
        #expect(direct.outcome == "succeeded")
        let cut = Array(value.prefix { $0 != 0 })
        let expected = Array("\(sandbox.bin)/probe".utf8) + [0] + cut + [0] + cut + [0] + cut + [0] + [0x78] + cut + [0]
        #expect(direct.files["args"] == expected)
        #expect(!Fixtures.exists(sandbox.out + "/pwned") && !Fixtures.exists(sandbox.directory.file("pwned")))
    }

    @Test(
        arguments: [
            ("echo a | cat", "stdout: a"), ("x=1 env", nil), ("/bin/echo a > f; cat f", "stdout: a"),
            ("ls -d /bin*", nil),
            ("~/no-such-thing", nil), ("echo", nil), ("cd /", nil), ("echo \"$PPID\" > /dev/null", nil),
        ] as [(String, String?)])
    func aCommandWithShellSyntaxGoesThroughTheShell(command: String, output: String?) async {
        let sandbox = Sandbox()
        let (direct, shell) = await Self.bothWays(
            command, sandbox: sandbox, context: Self.context(sandbox), expectDirect: false)
        #expect(direct == shell)
        if let output { #expect(direct.output == output) }
    }

    /// Random command lines over an alphabet full of shell syntax: every one the classifier calls
    /// plain must give the program the argv dash gives it (dash is the reference parser here).
    @Test func randomCommandsCalledPlainGiveTheShellsArguments() async {
        let sandbox = Sandbox()
        let context = Self.context(sandbox, ssid: .text(Array("v a'l\"u$e".utf8)))
        let alphabet = [
            "a", "b", "Z", "0", " ", " ", "\t", "'", "'", "\"", "\"", "\\", "$", "`", "*", "?", "[", "]", "~", "{", "}",
            "#", "!", "=", "%", ":", "-", ",", "@", "+", ".", "/", "\n", "é", "(", ")", "|", ";", "&", "<", ">", "^",
            "{{ssid}}", "{{ssid}}",
        ]
        var generator = SplitMix64(seed: 14)
        var plain = 0
        for _ in 0..<3000 where plain < 150 {
            let length = Int(generator.next() % 10) + 1
            let tail = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
            let command = "probe " + tail
            guard let template = try? ShellCommandTemplate(command), template.simpleCommand != nil else { continue }
            plain += 1
            let direct = await Self.run(command, direct: true, sandbox: sandbox, context: context)
            let shell = await Self.run(command, direct: false, sandbox: sandbox, context: context)
            #expect(
                direct.files["args"] != nil && direct == shell, "\(TerminalText.escaped(bytes: Array(command.utf8)))")
        }
        #expect(plain >= 100, "only \(plain) random commands were plain")
    }
}

/// A small deterministic generator (SplitMix64), so a failing case can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
