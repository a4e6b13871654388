@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// `user:` on `run:` actions: the child's credentials and login environment, as the child itself
/// reports them (`id`, the shell's variables), for `nobody` and for a user the test creates.
@Suite(
    .timeLimit(.minutes(2)), .serialized,
    .enabled(if: geteuid() == 0 && access("/usr/sbin/useradd", X_OK) == 0, "needs root and useradd(8)"))
struct ActionUserTests {
    /// What the child prints: one line, so it survives the log escaping of the output.
    static let report =
        "echo \"uid=$(id -u) gid=$(id -g) groups=$(id -G) home=$HOME user=$USER logname=$LOGNAME "
        + "xdg=${XDG_RUNTIME_DIR-unset} bus=${DBUS_SESSION_BUS_ADDRESS-unset}\""

    private static func run(
        _ command: String, as user: ActionUser?, workingDirectory: String? = nil, environment: [String: String] = [:]
    ) async -> ActionResult {
        var base = ["PATH": "/usr/bin:/bin", "HOME": "/root", "USER": "root", "XDG_RUNTIME_DIR": "/run/user/0"]
        base.merge(environment) { $1 }
        let action = RunAction(
            command: Fixtures.command(command), timeout: .seconds(10), workingDirectory: workingDirectory, user: user)
        return await RunExecutor(loop: .testLoop).execute(
            action, in: Fixtures.context(Fixtures.firing(), environment: base),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
    }

    /// A user (and a supplementary group) created for one test and removed afterwards.
    final class CreatedUser: Sendable {
        let name: String
        let group: String
        let account: UserAccount

        init() throws {
            let suffix = String(getpid() % 100_000)
            name = "nrtest\(suffix)"
            group = "nrtestg\(suffix)"
            Self.shell("userdel -r \(name) 2>/dev/null; groupdel \(group) 2>/dev/null; true")
            try #require(Self.shell("groupadd \(group)") == 0)
            try #require(Self.shell("useradd -M -d /home/\(name) -s /bin/sh -U -G \(group) \(name)") == 0)
            account = try #require(try UserAccount.named(name))
        }

        deinit {
            Self.shell("rm -rf /run/user/\(account.uid); userdel \(name); groupdel \(group)")
        }

        @discardableResult
        static func shell(_ command: String) -> Int32 {
            // Synchronous, for init and deinit: one command at a time, in a test that waits for it anyway.
            (try? TestNamespace.shell("sh", "-c", command)) == nil ? 1 : 0
        }
    }

    @Test func asNobodyTheChildHasNobodysCredentialsAndLogin() async throws {
        let nobody = try #require(try UserAccount.named("nobody"))
        let result = await Self.run(Self.report, as: .named("nobody"))
        #expect(result.isSuccess, "\(result)")
        let groups = nobody.groups.map(String.init).joined(separator: " ")
        let runtime = access("/run/user/\(nobody.uid)", F_OK) == 0
        #expect(
            result.output
                == "stdout: uid=\(nobody.uid) gid=\(nobody.gid) groups=\(groups) home=\(nobody.home) user=nobody "
                + "logname=nobody "
                + (runtime
                    ? "xdg=/run/user/\(nobody.uid) bus=unix:path=/run/user/\(nobody.uid)/bus"
                    : "xdg=unset bus=unset"))
    }

    /// The variables a child prints with `env`, one per line, by name.
    static func printedVariables(_ result: ActionResult) -> [String: String] {
        let text = (result.output ?? "").hasPrefix("stdout: ") ? String((result.output ?? "").dropFirst(8)) : ""
        var variables: [String: String] = [:]
        for line in text.split(separator: "\\n", omittingEmptySubsequences: false) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return variables
    }

    @Test func runAsNobodyGetsNoneOfTheDaemonsSecrets() async throws {
        let nobody = try #require(try UserAccount.named("nobody"))
        let harness = RunnerHarness(environment: ActionUserDecisionTests.daemonEnvironment)
        let firing = Fixtures.firing(
            rule: "office", facts: [.ssid: .string("Office")],
            actions: [
                RunnerHarness.spec(
                    RunAction(
                        command: Fixtures.command("env"), timeout: .seconds(10),
                        environment: [(name: "OWN", value: Fixtures.template("{{ssid}}"))], user: .named("nobody")))
            ])
        await harness.runner.submit(firing, wallTime: "2025-01-02T03:04:05Z")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        #expect(result.isSuccess, "\(result)")
        let printed = Self.printedVariables(result)
        #expect(printed["MQTT_PASSWORD"] == nil && printed["TOKEN"] == nil, "\(printed)")
        var expected = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": nobody.home, "USER": "nobody", "LOGNAME": "nobody",
            "SHELL": nobody.shell, "LANG": "C.UTF-8", "LC_TIME": "en_GB.UTF-8", "NETRULES_RULE": "office",
            "NETRULES_EDGE": "enter", "NETRULES_SSID": "Office", "OWN": "Office",
        ]
        if let runtime = nobody.runtimeDirectory {
            expected["XDG_RUNTIME_DIR"] = runtime
            expected["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(runtime)/bus"
        }
        for (name, value) in expected { #expect(printed[name] == value, "\(name) in \(printed)") }
        // Nothing else: the firing's time, and the PWD the shell (or the direct start) exports.
        let others = Set(printed.keys).subtracting(expected.keys)
        #expect(others == ["NETRULES_TIME", "NETRULES_TIME_UTC", "PWD"], "\(printed)")
    }

    @Test func aPluginRunAsNobodyGetsNoneOfTheDaemonsSecretsEither() async throws {
        let directory = TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let path = directory.file("netrules-action-env")
        Fixtures.writeFile(path, Array("#!/bin/sh\nexec env\n".utf8), mode: 0o755)
        let action = PluginAction(
            name: "env", options: .null, timeout: .seconds(10), executablePath: path, user: .named("nobody"))
        let result = await PluginExecutor(loop: .testLoop, directories: []).execute(
            action, in: Fixtures.context(Fixtures.firing(), environment: ActionUserDecisionTests.daemonEnvironment),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "env"))
        #expect(result.isSuccess, "\(result)")
        let printed = Self.printedVariables(result)
        #expect(printed["MQTT_PASSWORD"] == nil && printed["TOKEN"] == nil, "\(printed)")
        #expect(printed["PATH"] == "/usr/local/bin:/usr/bin:/bin" && printed["USER"] == "nobody", "\(printed)")
        #expect(printed["NETRULES_ACTION"] == "env" && printed["LANG"] == "C.UTF-8", "\(printed)")
    }

    @Test func aDirectlyStartedCommandChangesCredentialsToo() async throws {
        let nobody = try #require(try UserAccount.named("nobody"))
        let result = await Self.run("id -u", as: .named("nobody"))
        #expect(result.output == "stdout: \(nobody.uid)")
    }

    @Test func aCreatedUserGetsItsGroupsAndItsSessionBus() async throws {
        let user = try CreatedUser()
        let uid = user.account.uid
        // The runtime directory a login would have made (pam_systemd): now the bus is set too.
        #expect(CreatedUser.shell("mkdir -p /run/user/\(uid) && chown \(uid) /run/user/\(uid)") == 0)
        let result = await Self.run(Self.report, as: .named(user.name))
        #expect(result.isSuccess, "\(result)")
        let output = try #require(result.output)
        let extra = try #require(getgrnam(user.group)?.pointee.gr_gid)
        #expect(user.account.groups.contains(extra))
        #expect(user.account.groups.contains(user.account.gid))
        let groups = user.account.groups.map(String.init).joined(separator: " ")
        #expect(
            output
                == "stdout: uid=\(uid) gid=\(user.account.gid) groups=\(groups) home=/home/\(user.name) "
                + "user=\(user.name) logname=\(user.name) xdg=/run/user/\(uid) bus=unix:path=/run/user/\(uid)/bus")
    }

    @Test func aPluginRunsAsTheUserToo() async throws {
        let nobody = try #require(try UserAccount.named("nobody"))
        let directory = TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let path = directory.file("netrules-action-whoami")
        Fixtures.writeFile(
            path, Array("#!/bin/sh\necho \"$(id -u) $(id -g) $USER $HOME $NETRULES_ACTION\"\n".utf8), mode: 0o755)
        let action = PluginAction(
            name: "whoami", options: .null, timeout: .seconds(10), executablePath: path, user: .named("nobody"))
        let result = await PluginExecutor(loop: .testLoop, directories: []).execute(
            action, in: Fixtures.context(Fixtures.firing()),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "whoami"))
        #expect(result.isSuccess, "\(result)")
        #expect(result.output == "stdout: \(nobody.uid) \(nobody.gid) nobody \(nobody.home) whoami")
    }

    @Test func theWorkingDirectoryIsEnteredAsTheUser() async throws {
        let directory = TemporaryDirectory()
        // Root's 0700 directory: root could enter it, nobody cannot, and the action must not either.
        #expect(chmod(directory.path, 0o700) == 0)
        let refused = await Self.run("pwd", as: .named("nobody"), workingDirectory: directory.path)
        guard case .failed(let error) = refused.outcome else {
            Issue.record("a root-only directory was entered as nobody: \(refused)")
            return
        }
        #expect("\(error)" == "could not start the command: 'chdir' failed: (13) Permission denied")
        #expect(chmod(directory.path, 0o755) == 0)
        let allowed = await Self.run("pwd", as: .named("nobody"), workingDirectory: directory.path)
        #expect(allowed.output == "stdout: \(directory.path)")
    }

    @Test func anAccountRemovedSinceTheRulesLoadedFailsTheAction() async {
        let result = await Self.run("true", as: .named("nrtest-no-such-user"))
        guard case .failed(let error) = result.outcome else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.message == "there is no user 'nrtest-no-such-user' on this system (user: nrtest-no-such-user)")
    }

    @Test func activeWithNoGraphicalSessionIsSkippedAndLogged() async throws {
        // This machine has no logind graphical session: the real lookup answers "none".
        let sessions = try LoginSession.current()
        try #require(
            LoginSession.activeGraphicalUser(in: sessions) == nil,
            "this machine has an active graphical session; the 'none' path cannot be tested here")
        let harness = RunnerHarness()
        let firing = Fixtures.firing(
            rule: "portal",
            actions: [
                RunnerHarness.spec(
                    RunAction(
                        command: Fixtures.command("touch \(harness.directory.file("ran"))"), timeout: .seconds(10),
                        user: .activeSession))
            ])
        await harness.runner.submit(firing, wallTime: "t")
        let results = await harness.settledResults(expecting: 1)
        guard case .skipped(let reason) = results.first?.outcome else {
            Issue.record("not skipped: \(results)")
            return
        }
        #expect(reason == "no active local graphical session (user: active)")
        #expect(!Fixtures.exists(harness.directory.file("ran")))
        #expect(
            harness.log.contains(
                "rule 'portal' enter action 0 (run): skipped: no active local graphical session (user: active)"),
            "\(harness.log)")
    }
}

/// The decisions around `user:` that need no root: which session is "active", and what a
/// per-user daemon may do.
@Suite(.timeLimit(.minutes(1)))
struct ActionUserDecisionTests {
    static func session(
        _ uid: UInt32, active: Bool = true, remote: Bool = false, type: String = "wayland",
        class sessionClass: String = "user",
        seat: String = "seat0"
    ) -> LoginSession {
        LoginSession(uid: uid, isActive: active, isRemote: remote, type: type, sessionClass: sessionClass, seat: seat)
    }

    @Test func theActiveLocalGraphicalUserSessionIsChosen() {
        #expect(LoginSession.activeGraphicalUser(in: []) == nil)
        #expect(LoginSession.activeGraphicalUser(in: [Self.session(1000)]) == 1000)
        #expect(LoginSession.activeGraphicalUser(in: [Self.session(1000, type: "x11")]) == 1000)
        // Not active (switched away), remote (ssh -X, xrdp), a text console, the greeter, no seat.
        #expect(LoginSession.activeGraphicalUser(in: [Self.session(1000, active: false)]) == nil)
        #expect(LoginSession.activeGraphicalUser(in: [Self.session(1000, remote: true)]) == nil)
        #expect(LoginSession.activeGraphicalUser(in: [Self.session(1000, type: "tty")]) == nil)
        #expect(LoginSession.activeGraphicalUser(in: [Self.session(115, class: "greeter")]) == nil)
        #expect(LoginSession.activeGraphicalUser(in: [Self.session(1000, seat: "")]) == nil)
        // Fast user switching: only the foreground one is active.
        #expect(
            LoginSession.activeGraphicalUser(in: [Self.session(1000, active: false), Self.session(1001)]) == 1001)
        // Multi-seat: seat0 first, whatever the listing order; then the lowest uid.
        #expect(
            LoginSession.activeGraphicalUser(in: [Self.session(1002, seat: "seat1"), Self.session(1003)]) == 1003)
        #expect(
            LoginSession.activeGraphicalUser(in: [Self.session(1005, seat: "seat2"), Self.session(1004, seat: "seat1")])
                == 1004)
    }

    @Test func aPerUserDaemonRunsActionsOnlyAsItself() {
        let alice = UserAccount(name: "alice", uid: 1000, gid: 1000, groups: [1000], home: "/home/alice")
        guard case .account(alice) = ActionAccount.decide(alice, daemonUID: 0, asked: .named("alice")) else {
            Issue.record("root did not switch to alice")
            return
        }
        guard case .daemon(alice?) = ActionAccount.decide(alice, daemonUID: 1000, asked: .activeSession) else {
            Issue.record("alice's own daemon did not run as itself")
            return
        }
        guard case .failed(let error) = ActionAccount.decide(alice, daemonUID: 1001, asked: .named("alice")) else {
            Issue.record("bob's daemon ran an action as alice")
            return
        }
        #expect(
            error.message
                == "netrules runs as uid 1001, not as root, so it cannot run an action as 'alice' (user: alice)")
    }

    /// The daemon's environment, holding what only root may read.
    static let daemonEnvironment = [
        "PATH": "/root/bin:/usr/sbin:/usr/bin:/bin", "HOME": "/root", "USER": "root", "LANG": "C.UTF-8",
        "LC_TIME": "en_GB.UTF-8", "XDG_RUNTIME_DIR": "/run/user/0", "MQTT_PASSWORD": "hunter2", "TOKEN": "s3cret",
        "SHELL": "/bin/bash", "NETRULES_SSID": "stale",
    ]

    static func entries(_ account: ActionAccount, extra: [(name: String, value: [UInt8])] = []) -> [String] {
        let context = Fixtures.context(
            Fixtures.firing(rule: "r", facts: [.ssid: .string("Office")]), environment: daemonEnvironment)
        return FiringEnvironment.entries(for: context, extra: extra, as: account).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// A user who has no runtime directory here, so no session variables.
    static let stranger = UserAccount(
        name: "nrtest", uid: 4_000_000, gid: 4_000_000, groups: [], home: "/home/nrtest", shell: "/bin/zsh")

    @Test func anotherUserStartsFromACleanEnvironment() {
        let own: [(name: String, value: [UInt8])] = [
            (name: "OWN", value: Array("mine".utf8)), (name: "HOME", value: Array("/root".utf8)),
        ]
        #expect(
            Self.entries(.account(Self.stranger), extra: own) == [
                "HOME=/home/nrtest", "LANG=C.UTF-8", "LC_TIME=en_GB.UTF-8", "LOGNAME=nrtest", "NETRULES_EDGE=enter",
                "NETRULES_RULE=r", "NETRULES_SSID=Office", "NETRULES_TIME=2025-01-02T03:04:05Z",
                "NETRULES_TIME_UTC=2025-01-02T03:04:05Z", "OWN=mine", "PATH=/usr/local/bin:/usr/bin:/bin",
                "SHELL=/bin/zsh", "USER=nrtest",
            ], "an env: HOME does not point another user's child at root's home")
    }

    @Test func anActionAsRootKeepsTheDaemonsEnvironment() {
        let entries = Self.entries(.daemon(nil))
        #expect(entries.contains("MQTT_PASSWORD=hunter2") && entries.contains("TOKEN=s3cret"))
        #expect(entries.contains("PATH=/root/bin:/usr/sbin:/usr/bin:/bin") && entries.contains("HOME=/root"))
        #expect(entries.contains("NETRULES_SSID=Office") && !entries.contains("NETRULES_SSID=stale"))
    }

    @Test func aPerUserDaemonsOwnUserKeepsItsEnvironmentWithItsLogin() {
        // A per-user daemon running an action as itself: its environment is already that user's.
        let entries = Self.entries(.daemon(Self.stranger))
        #expect(entries.contains("TOKEN=s3cret"))
        #expect(entries.contains("HOME=/home/nrtest") && entries.contains("SHELL=/bin/zsh"))
        #expect(!entries.contains { $0.hasPrefix("XDG_RUNTIME_DIR=") }, "root's runtime directory is not kept")
    }
}
