@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// Every hostile value (SSIDs and portal URLs) through every quoting context of `run:`, a webhook's
/// URL, headers, JSON and text body, and a write's content: each arrives byte-exact and nothing
/// it spells is ever executed (every entry that could run something would create `pwned`).
@Suite(.timeLimit(.minutes(1)))
struct HostileValueTests {
    /// The three contexts, as command templates that print the value alone into `out`.
    static let commands: [(ShellQuotingContext, String)] = [
        (.unquoted, "printf '%s' {{ssid}} > out; printf '%s' {{portal.url}} > url"),
        (.doubleQuoted, "printf '%s' \"{{ssid}}\" > out; printf '%s' \"{{portal.url}}\" > url"),
        (.singleQuoted, "printf '%s' '{{ssid}}' > out; printf '%s' '{{portal.url}}' > url"),
    ]

    static let cases: [([UInt8], ShellQuotingContext)] = HostileSSIDs.corpus.flatMap { value in
        commands.map { (value, $0.0) }
    }

    @Test(arguments: cases)
    func aHostileValueInEachQuotingContextRunsNothingAndArrivesByteExact(value: [UInt8], context: ShellQuotingContext)
        async throws
    {
        let directory = TemporaryDirectory()
        let template = try #require(Self.commands.first { $0.0 == context }?.1)
        let command = Fixtures.command(template)
        #expect(command.contexts == [context, context])
        let action = RunAction(command: command, timeout: .seconds(10), workingDirectory: directory.path)
        let context = Fixtures.context(Fixtures.firing(facts: [.ssid: .text(value), .portalURL: .text(value)]))
        let result = await RunExecutor(loop: .testLoop).execute(
            action, in: context, result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
        #expect(result.isSuccess, "\(result)")
        #expect(!Fixtures.exists(directory.file("pwned")), "the value ran a command")
        // A command line is a C string: the value is cut at a NUL byte (none in the corpus).
        #expect(Fixtures.readFile(directory.file("out")) == value)
        #expect(Fixtures.readFile(directory.file("url")) == value)
    }

    @Test(arguments: HostileSSIDs.portalURLs)
    func theIssuesPortalURLsInTheIssuesCommandsRunNothing(url: [UInt8]) async throws {
        let directory = TemporaryDirectory()
        let commands = [
            "printf '%s\\n' \"captive portal at {{portal.url}}\" >> log",
            "notify() { printf '%s' \"$1\" >> log; }; notify 'Joined {{ssid}}'",
        ]
        for template in commands {
            let action = RunAction(
                command: Fixtures.command(template), timeout: .seconds(10), workingDirectory: directory.path)
            let context = Fixtures.context(Fixtures.firing(facts: [.ssid: .text(url), .portalURL: .text(url)]))
            let result = await RunExecutor(loop: .testLoop).execute(
                action, in: context, result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
            #expect(result.isSuccess, "\(result)")
        }
        #expect(!Fixtures.exists(directory.file("pwned")), "the portal URL ran a command")
        #expect(
            Fixtures.readFile(directory.file("log")) == Array("captive portal at ".utf8) + url + [0x0A]
                + Array("Joined ".utf8) + url)
    }

    @Test func aValueThatLooksLikeAnOptionStaysAnOperandAfterDoubleDash() async throws {
        let directory = TemporaryDirectory()
        let action = RunAction(
            command: Fixtures.command("sort -- {{ssid}} < /dev/null > sorted 2> err || true"), timeout: .seconds(10),
            workingDirectory: directory.path)
        let value = Array("--output=\(directory.file("pwned"))".utf8)
        let result = await RunExecutor(loop: .testLoop).execute(
            action, in: Fixtures.context(Fixtures.firing(facts: [.ssid: .text(value)])),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
        #expect(result.isSuccess)
        #expect(!Fixtures.exists(directory.file("pwned")), "the SSID became an option")
    }

    @Test(arguments: HostileSSIDs.corpus)
    func aWriteStoresAHostileValueByteExact(value: [UInt8]) async {
        let directory = TemporaryDirectory()
        let path = directory.file("state")
        let result = await WriteExecutor(loop: .testLoop).execute(
            WriteAction(path: path, content: Fixtures.template("[{{ssid}}]")),
            in: Fixtures.context(Fixtures.firing(facts: [.ssid: .text(value)])),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "write"))
        #expect(result.isSuccess)
        #expect(Fixtures.readFile(path) == [0x5B] + value + [0x5D])
    }
}

/// `{{env.NAME}}` in a webhook's URL, JSON, text body and headers: sent on every attempt, never
/// written to the outbox (pending or failed).
@Suite(.timeLimit(.minutes(1)))
struct WebhookSecretTests {
    @Test func secretsAreSentButNeverStoredInTheOutbox() async throws {
        let server = try TestHTTPServer { _ in .status(500) }
        defer { server.stop() }
        let secret = "s3cret-\u{22}quoted\u{22}&/value"
        let harness = RunnerHarness(environment: ["PATH": "/usr/bin:/bin", "TOKEN": secret])
        for body in [
            WebhookAction.Body.json(
                .object([
                    ConfigMember("token", .string("Bearer {{env.TOKEN}}")), ConfigMember("ssid", .string("{{ssid}}")),
                ])),
            .text(Fixtures.template("token={{env.TOKEN}} ssid={{ssid}}")),
        ] {
            let action = WebhookAction(
                url: Fixtures.template(server.url("/hook/{{ssid}}") + "?t={{env.TOKEN}}"),
                headers: [(name: "Authorization", value: Fixtures.template("Bearer {{env.TOKEN}}"))], body: body,
                timeout: .seconds(5), attempts: 2, backoff: .milliseconds(10))
            // The SSID spells a token of another entry: without the nonce it stays text.
            let firing = Fixtures.firing(
                facts: [.ssid: "{{secret-0000:raw:TOKEN}}"], actions: [ActionSpec(action)])
            await harness.runner.submit(firing, wallTime: "t")
        }
        let results = await harness.settledResults(expecting: 2)
        #expect(results.count == 2)
        #expect(server.requests.count == 4)
        let encodedSecret = String(decoding: PercentEncoding.urlComponent(Array(secret.utf8)), as: UTF8.self)
        for request in server.requests {
            let target = String(decoding: request.target, as: UTF8.self)
            #expect(target.hasSuffix("?t=" + encodedSecret), "\(target)")
            #expect(
                request.headerBytes("Authorization").map { String(decoding: $0, as: UTF8.self) }?.contains("s3cret")
                    == true)
            let body = String(decoding: request.body, as: UTF8.self)
            #expect(body.contains("s3cret"), "\(body)")
            #expect(body.contains("{{secret-0000:raw:TOKEN}}"), "the SSID's text arrives as written: \(body)")
        }
        let json = try #require(
            server.requests.first {
                $0.headerBytes("Content-Type").map { String(decoding: $0, as: UTF8.self) } == "application/json"
            })
        #expect(JSONProbe.string(in: json.body, at: ["token"]) == Array("Bearer \(secret)".utf8))
        let failed = harness.directory.file("state/outbox/failed")
        let names = try sys_listDirectory(failed).get(call: "list").filter { $0.hasSuffix(".json") }
        #expect(names.count == 2)
        for name in names {
            let stored = String(decoding: try #require(Fixtures.readFile(failed + "/" + name)), as: UTF8.self)
            #expect(!stored.contains("s3cret"), "a secret reached the disk: \(stored)")
        }
    }
}

/// `write` refuses what is not a regular file, and never blocks on one.
@Suite(.timeLimit(.minutes(1)))
struct HostileWriteTargetTests {
    private func write(_ path: String, append: Bool, timeout: Duration = .seconds(5)) async -> ActionResult {
        await WriteExecutor(loop: .testLoop).execute(
            WriteAction(path: path, content: Fixtures.template("{{ssid}}\n"), append: append, timeout: timeout),
            in: Fixtures.context(Fixtures.firing(facts: [.ssid: "evil"])),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "write"))
    }

    @Test(arguments: [true, false])
    func aPlantedSymlinkIsNotFollowedNorReplaced(append: Bool) async throws {
        let directory = TemporaryDirectory()
        let victim = directory.file("victim")
        Fixtures.writeFile(victim, Array("precious\n".utf8))
        let link = directory.file("netrules.log")
        #expect(symlink(victim, link) == 0)
        let result = await write(link, append: append)
        guard case .failed(let error) = result.outcome else { Issue.record("wrote through a symlink"); return }
        #expect(error.message.contains("symbolic link"), "\(error)")
        #expect(Fixtures.readFile(victim) == Array("precious\n".utf8))
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link was replaced")
    }

    @Test(arguments: [true, false])
    func aFIFOIsRefusedAtOnce(append: Bool) async throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let start = ContinuousClock.now
        let result = await write(fifo, append: append, timeout: .seconds(20))
        #expect(ContinuousClock.now - start < .seconds(5), "the write blocked on a FIFO")
        guard case .failed(let error) = result.outcome else { Issue.record("wrote to a FIFO"); return }
        #expect(error.message.contains("regular file"), "\(error)")
    }

    @Test func aDeviceNodeIsNeverReplaced() async throws {
        let directory = TemporaryDirectory()
        let device = directory.file("null")
        // The same device as /dev/null (1, 3), in our own directory (check refuses /dev itself).
        #expect(mknod(device, S_IFCHR | 0o666, dev_t(0x103)) == 0)
        let result = await write(device, append: false)
        guard case .failed = result.outcome else { Issue.record("replaced a device node"); return }
        var info = stat()
        #expect(lstat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func theWriteTimeoutAbandonsBlockedWork() async throws {
        // What bounds a write blocked in the kernel (a hung NFS server, which a test cannot make):
        // the worker thread is left behind and the caller answers at the limit.
        let blocked = await DedicatedThread.run(within: .milliseconds(200), on: .testLoop) {
            sleep(2); return 1
        }
        #expect(blocked == nil)
        let quick = await DedicatedThread.run(within: .seconds(5), on: .testLoop) { 7 }
        #expect(quick == 7)
    }
}
