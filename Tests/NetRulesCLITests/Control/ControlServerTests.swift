import Foundation
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// A real control server on a socket in a temporary directory, answering from a fake daemon.
@Suite(.timeLimit(.minutes(1)))
struct ControlServerTests {
    static let rules = """
        version: 1
        rules:
          - name: office
            when:
              any:
                - { fact: { key: network, equals: wired } }
                - { fact: { key: x.y, equals: z } }
            for: 30s
            do:
              - run: "true"
        """

    static let facts: [FactKey: FactState] = [
        "ssid": .value(.string("Office")), "network": .value(.string("wired")), "gateway": .absent,
        "dns": .value(.list([.string("1.1.1.1"), .string("9.9.9.9")])),
    ]

    static func fake(now: Instant? = Instant(.seconds(10))) -> FakeDaemonQueries {
        FakeDaemonQueries(yaml: rules, facts: facts, now: now)
    }

    /// The names in the `rules` answer (each rule's state is `RulesCommandTests`' to check).
    func ruleNames(_ fixture: ControlFixture) async throws -> [String] {
        let answer = try await ask(fixture, .rules)
        #expect(answer.hasPrefix(#"{"version":1,"source":"daemon","rules":[{"name":"#))
        return ControlDocuments.ruleNames(in: try JSONValue.parse(Array(answer.utf8)))
    }

    func ask(_ fixture: ControlFixture, _ request: ControlRequest) async throws -> String {
        let client = try #require(try ControlClient.connect(path: fixture.path))
        return try await client.response(to: request.document).compact
    }

    @Test func statusAnswersTheKnownFactsSortedByKey() async throws {
        let fixture = try await ControlFixture.start(Self.fake())
        #expect(
            try await ask(fixture, .status)
                == #"{"version":1,"facts":{"dns":["1.1.1.1","9.9.9.9"],"gateway":null,"network":"wired","ssid":"Office"},"unknown":["x.y"]}"#
        )
        try await fixture.stop()
    }

    @Test func explainAnswersTheTreeTheFactsReadAndTheHold() async throws {
        let fixture = try await ControlFixture.start(Self.fake())
        #expect(
            try await ask(fixture, .explain(rule: "office"))
                == #"{"version":1,"rule":"office","truth":"true","tree":{"condition":"any","truth":"true","children":["#
                + #"{"condition":"network equals wired","truth":"true","children":[]},"#
                + #"{"condition":"x.y equals z","truth":"unknown","children":[]}]},"facts":{"network":"wired"},"#
                + #""unknown":["x.y"],"state":{"confirmed":null,"hold":{"edge":"enter","deadline_in_seconds":20.0,"#
                + #""deadline":"1970-01-01T00:00:30Z"},"cooldown":false,"once_per":[]}}"#)
        try await fixture.stop()
    }

    @Test func explainWithoutEngineTimeLeavesTheHoldsTimeNull() async throws {
        let fixture = try await ControlFixture.start(Self.fake(now: nil))
        #expect(
            try await ask(fixture, .explain(rule: "office")).contains(
                #""hold":{"edge":"enter","deadline_in_seconds":null,"#))
        try await fixture.stop()
    }

    @Test func explainOfAnUnknownRuleIsAnError() async throws {
        let fixture = try await ControlFixture.start(Self.fake())
        #expect(try await ask(fixture, .explain(rule: "nope")) == #"{"version":1,"error":"no rule named 'nope'"}"#)
        try await fixture.stop()
    }

    @Test func rulesAnswersTheNames() async throws {
        let fixture = try await ControlFixture.start(Self.fake())
        #expect(try await ruleNames(fixture) == ["office"])
        try await fixture.stop()
    }

    @Test(arguments: [
        (#"{"version":1,"command":"reboot"}"#, #"{"version":1,"error":"unknown command 'reboot'"}"#),
        (
            #"{"version":2,"command":"status"}"#,
            #"{"version":1,"error":"unsupported version 2; this daemon speaks version 1"}"#
        ),
        (#"{"command":"status"}"#, #"{"version":1,"error":"invalid request: missing \"version\""}"#),
        (#"{"version":1,"command":"explain"}"#, #"{"version":1,"error":"explain needs a \"rule\""}"#),
        (#"[1]"#, #"{"version":1,"error":"invalid request: expected a JSON object"}"#),
        (#"{"version":1,"#, #"{"version":1,"error":"invalid request: expected a key at byte 13"}"#),
    ])
    func badRequestsGetOneErrorLine(request: String, answer: String) async throws {
        let fixture = try await ControlFixture.start(Self.fake())
        #expect(try await ControlFixture.exchange(fixture.path, sending: Array((request + "\n").utf8)) == answer + "\n")
        try await fixture.stop()
    }

    @Test func anOversizedRequestIsRefused() async throws {
        let fixture = try await ControlFixture.start(Self.fake())
        let answer = try await ControlFixture.exchange(
            fixture.path, sending: Array(repeating: UInt8(ascii: "a"), count: 70_000))
        #expect(answer == #"{"version":1,"error":"request longer than 65536 bytes"}"# + "\n")
        try await fixture.stop()
    }

    @Test func aSilentClientIsDisconnectedAfterTheRequestTimeout() async throws {
        let fixture = try await ControlFixture.start(Self.fake()) { $0.requestTimeout = .milliseconds(50) }
        let answer = try await ControlFixture.exchange(fixture.path, sending: [], halfClose: false)
        #expect(answer == #"{"version":1,"error":"no request within 0.05 seconds"}"# + "\n")
        try await fixture.stop()
    }

    /// Issue 10, item 10: 32 `watch` clients used to hold every slot, and `status` failed.
    @Test func statusIsAnsweredWhateverWatchClientsHold() async throws {
        let fixture = try await ControlFixture.start(Self.fake()) { $0.maximumWatchers = 40 }
        var clients: [ControlClient] = []
        var streams: [AsyncThrowingStream<JSONValue, any Error>.AsyncIterator] = []
        for _ in 0..<40 {
            let client = try #require(try ControlClient.connect(path: fixture.path))
            var lines = client.stream(ControlRequest.watch.document).makeAsyncIterator()
            _ = try await lines.next()  // streaming: the watch has left the request slots
            clients.append(client)
            streams.append(lines)
        }
        #expect(
            try await ask(fixture, .status)
                == #"{"version":1,"facts":{"dns":["1.1.1.1","9.9.9.9"],"gateway":null,"network":"wired","ssid":"Office"},"unknown":["x.y"]}"#
        )
        // One more watcher than allowed gets a plain refusal, not a hang.
        let extra = try #require(try ControlClient.connect(path: fixture.path))
        var refused = extra.stream(ControlRequest.watch.document).makeAsyncIterator()
        #expect(
            try await refused.next()?.compact
                == #"{"version":1,"error":"too many watch clients (40); close one and try again"}"#)
        clients.forEach { $0.cancel() }
        extra.cancel()
        try await fixture.stop()
    }

    @Test func watchSendsTheCurrentFactsThenEachChangeUntilTheClientLeaves() async throws {
        let queries = Self.fake()
        let fixture = try await ControlFixture.start(queries)
        let client = try #require(try ControlClient.connect(path: fixture.path))
        var lines = client.stream(ControlRequest.watch.document).makeAsyncIterator()
        var initial: [String] = []
        for _ in 0..<4 { initial.append(try #require(try await lines.next()).compact) }
        let at = #/"at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/#
        #expect(initial.allSatisfy { $0.contains(at) && !$0.contains(#""old""#) && $0.hasPrefix(#"{"version":1,"#) })
        #expect(
            initial.map { $0.replacing(at, with: #""at":"T""#) } == [
                #"{"version":1,"key":"dns","new":["1.1.1.1","9.9.9.9"],"at":"T"}"#,
                #"{"version":1,"key":"gateway","new":null,"at":"T"}"#,
                #"{"version":1,"key":"network","new":"wired","at":"T"}"#,
                #"{"version":1,"key":"ssid","new":"Office","at":"T"}"#,
            ])
        await queries.waitForSubscriber()
        await queries.publish(
            FactChange(key: "ssid", old: .value(.string("Office")), new: .unknown, at: "2026-01-02T03:04:05Z"))
        await queries.publish(
            FactChange(key: "gateway", old: .absent, new: .value(.string("10.0.0.1")), at: "2026-01-02T03:04:06Z"))
        #expect(
            try await lines.next()?.compact == #"{"version":1,"key":"ssid","old":"Office","at":"2026-01-02T03:04:05Z"}"#
        )
        #expect(
            try await lines.next()?.compact
                == #"{"version":1,"key":"gateway","old":null,"new":"10.0.0.1","at":"2026-01-02T03:04:06Z"}"#)
        client.cancel()
        // The server notices the hang-up and lets go of the daemon's stream.
        await queries.waitUntilNoSubscriber()
        try await fixture.stop()
    }

    @Test(arguments: [(0, 1000, true), (1000, 1000, true), (1001, 1000, false), (0, 0, true), (1000, 0, false)])
    func onlyRootAndTheDaemonsUserMayAsk(peer: uid_t, daemon: uid_t, admitted: Bool) {
        #expect(ControlServer.admits(peer: peer, daemon: daemon) == admitted)
    }

    @Test func theSocketIsPrivateAndRemovedAtShutdown() async throws {
        let directory = ControlFixture.makeTemporaryDirectory() + "/nested/run"
        let fixture = try await ControlFixture.start(Self.fake(), directory: directory)
        var info = stat()
        #expect(lstat(fixture.path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(lstat(directory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        try await fixture.stop()
        #expect(lstat(fixture.path, &info) == -1 && errno == ENOENT)
    }

    @Test func aStaleSocketFileIsReplaced() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        let path = directory + "/control.sock"
        // A socket file nobody listens on: what a daemon killed with SIGKILL leaves behind.
        let fd = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
        #expect(try FileDescriptor.withAddress(path) { bind(fd, $0, $1) } == 0)
        close(fd)
        #expect(try ControlClient.connect(path: path) == nil)
        let fixture = try await ControlFixture.start(Self.fake(), directory: directory)
        #expect(try await ruleNames(fixture) == ["office"])
        try await fixture.stop()
    }

    @Test func aLiveSocketIsNotStolen() async throws {
        let first = try await ControlFixture.start(Self.fake())
        let second = ControlServer(path: first.path, queries: Self.fake(), loop: .testLoop, logger: .disabled)
        await #expect {
            try await second.run()
        } throws: { error in
            (error as? ControlSocketError)?.code == .anotherDaemon
                && "\(error)"
                    == "another netrules daemon (PID \(getpid())) is answering on the control socket \(first.path); stop it first, or give this daemon its own --socket"
        }
        #expect(try await ruleNames(first) == ["office"])
        try await first.stop()
    }

    @Test func somethingElseAtThePathIsLeftAlone() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        let path = directory + "/control.sock"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        let server = ControlServer(path: path, queries: Self.fake(), loop: .testLoop, logger: .disabled)
        await #expect {
            try await server.run()
        } throws: { error in
            "\(error)" == "'\(path)' exists and is not a socket; not replacing it"
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
    }

    @Test func noDaemonMeansNoClient() throws {
        #expect(try ControlClient.connect(path: ControlFixture.makeTemporaryDirectory() + "/none.sock") == nil)
    }
}
