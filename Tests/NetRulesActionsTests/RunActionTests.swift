@preconcurrency import Glibc
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesActions

@Suite(.timeLimit(.minutes(1)))
struct RunActionTests {
    private func run(_ command: String, facts: [FactKey: FactValue?], in directory: TemporaryDirectory) async
        -> ActionResult
    {
        let action = RunAction(
            command: Fixtures.command(command), timeout: .seconds(10), workingDirectory: directory.path)
        let context = Fixtures.context(Fixtures.firing(facts: facts))
        return await RunExecutor(loop: .testLoop).execute(
            action, in: context, result: ActionResult(rule: "office", edge: .enter, index: 0, kind: "run"))
    }

    @Test func shellQuotingWrapsInSingleQuotes() {
        #expect(ShellQuoting.quote(Array("it's".utf8)) == Array("'it'\\''s'".utf8))
        #expect(ShellQuoting.quote([]) == Array("''".utf8))
        #expect(ShellQuoting.quote([0x61, 0x00, 0x62]) == Array("'a'".utf8))
    }

    @Test(arguments: HostileSSIDs.corpus)
    func hostileSSIDIsNeverExecutedAndArrivesByteExact(ssid: [UInt8]) async throws {
        let directory = TemporaryDirectory()
        let result = await run(
            "printf '%s' {{ssid}} > from-argument; printf '%s' \"$NETRULES_SSID\" > from-environment; cat > document.json",
            facts: [.ssid: .text(ssid), .bssid: "aa:bb:cc:dd:ee:ff"], in: directory
        )
        #expect(result.isSuccess, "\(result)")
        #expect(!Fixtures.exists(directory.file("pwned")), "the SSID ran a command")
        #expect(Fixtures.readFile(directory.file("from-argument")) == ssid)
        #expect(Fixtures.readFile(directory.file("from-environment")) == ssid)
        let document = try #require(Fixtures.readFile(directory.file("document.json")))
        let decoded = try #require(JSONProbe.string(in: document, at: ["facts", "ssid"]))
        #expect(decoded == ssid)
        if String(validating: ssid, as: UTF8.self) == nil {
            #expect(
                JSONProbe.string(in: document, at: ["facts_hex", "ssid"])
                    == Array(ssid.map(FactValue.hexByte).joined().utf8))
        }
    }

    @Test func environmentCarriesEveryFactAndTheFiring() async throws {
        let directory = TemporaryDirectory()
        let result = await run(
            "env | grep ^NETRULES_ | sort > env.txt",
            facts: [
                .ssid: "Office", .gateway: "10.0.0.1", .host("intra-net"): "reachable", .portalURL: nil,
                .ip: .list(["10.0.0.7/24", "fd00::7/64"]),
            ],
            in: directory
        )
        #expect(result.isSuccess)
        let lines = String(decoding: try #require(Fixtures.readFile(directory.file("env.txt"))), as: UTF8.self)
        #expect(
            lines == """
                NETRULES_EDGE=enter
                NETRULES_GATEWAY=10.0.0.1
                NETRULES_HOSTS_INTRA_NET=reachable
                NETRULES_IP=10.0.0.7/24 fd00::7/64
                NETRULES_PORTAL_URL=
                NETRULES_RULE=office
                NETRULES_SSID=Office
                NETRULES_TIME=2025-01-02T03:04:05Z
                NETRULES_TIME_UTC=2025-01-02T03:04:05Z

                """)
    }

    @Test func actionEnvironmentAndWorkingDirectoryApply() async throws {
        let directory = TemporaryDirectory()
        var action = RunAction(
            command: Fixtures.command("printf '%s|%s' \"$GREETING\" \"$PWD\" > out"), workingDirectory: directory.path)
        action.environment = [(name: "GREETING", value: Fixtures.template("hi {{ssid}}"))]
        let context = Fixtures.context(Fixtures.firing(facts: [.ssid: "$(x)"]))
        let result = await RunExecutor(loop: .testLoop).execute(
            action, in: context, result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
        #expect(result.isSuccess)
        #expect(Fixtures.readFile(directory.file("out")) == Array("hi $(x)|\(directory.path)".utf8))
    }

    @Test func failureAndTimeoutAreReported() async {
        let directory = TemporaryDirectory()
        let failed = await run("echo oops >&2; exit 7", facts: [:], in: directory)
        #expect(failed.exitStatus == 7)
        #expect(failed.output == "stderr: oops")
        guard case .failed(let error) = failed.outcome else { Issue.record("exit 7 counted as success"); return }
        #expect(error.code == .exitedWithFailure)

        let action = RunAction(command: Fixtures.command("sleep 30"), timeout: .milliseconds(100))
        let slow = await RunExecutor(loop: .testLoop, terminationGrace: .milliseconds(100)).execute(
            action, in: Fixtures.context(Fixtures.firing()),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "run"))
        guard case .failed(let timeout) = slow.outcome else { Issue.record("a timeout counted as success"); return }
        #expect(timeout.code == .timedOut)
    }

    @Test func aValueWithNULIsCutInTheCommandAndEnvironmentButWholeInJSON() async throws {
        let directory = TemporaryDirectory()
        let ssid: [UInt8] = [0x61, 0x00, 0x62]
        let result = await run(
            "printf '%s' {{ssid}} > a; printf '%s' \"$NETRULES_SSID\" > e; cat > d", facts: [.ssid: .text(ssid)],
            in: directory)
        #expect(result.isSuccess)
        #expect(Fixtures.readFile(directory.file("a")) == [0x61])
        #expect(Fixtures.readFile(directory.file("e")) == [0x61])
        #expect(
            JSONProbe.string(in: try #require(Fixtures.readFile(directory.file("d"))), at: ["facts", "ssid"]) == ssid)
    }
}
