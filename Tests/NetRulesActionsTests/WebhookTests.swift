@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesActions

@Suite(.timeLimit(.minutes(1)))
struct WebhookTests {
    private func webhook(
        _ url: String, json: ConfigValue? = nil, headers: [(String, String)] = [], attempts: Int = 5,
        timeout: Duration = .seconds(5), online: Bool = false
    ) -> ActionSpec {
        ActionSpec(
            WebhookAction(
                url: Fixtures.template(url), headers: headers.map { (name: $0.0, value: Fixtures.template($0.1)) },
                body: json.map { .json($0) } ?? .none, timeout: timeout, attempts: attempts, backoff: .milliseconds(20),
                waitsForOnline: online))
    }

    private func outboxFiles(_ harness: RunnerHarness, failed: Bool = false) -> [String] {
        let directory = harness.directory.file("state/outbox") + (failed ? "/failed" : "")
        return ((try? sys_listDirectory(directory).get(call: "list")) ?? []).filter { $0.hasSuffix(".json") }
    }

    @Test func twoFailuresThenSuccessIsDeliveredWithOneIdempotencyKey() async throws {
        let counter = Locked(0)
        let server = try TestHTTPServer { _ in
            counter.withLock {
                $0 += 1; return $0 <= 2 ? .status(500) : .status(200)
            }
        }
        let harness = RunnerHarness()
        await harness.runner.submit(Fixtures.firing(actions: [webhook(server.url("/hook"))]), wallTime: "t")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        #expect(result.isSuccess)
        #expect(result.attempts == 3)
        #expect(result.httpStatus == 200)
        let keys = Set(server.requests.map(\.idempotencyKey))
        #expect(server.requests.count == 3)
        #expect(keys.count == 1 && keys.first! == result.idempotencyKey)
        #expect(outboxFiles(harness).isEmpty)
    }

    @Test func aServerThatNeverAnswersFailsAfterTheAttemptsAndKeepsTheEntry() async throws {
        let server = try TestHTTPServer { _ in .hang }
        defer { server.stop() }
        let harness = RunnerHarness()
        await harness.runner.submit(
            Fixtures.firing(actions: [webhook(server.url("/hook"), attempts: 2, timeout: .milliseconds(300))]),
            wallTime: "t")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        guard case .failed(let error) = result.outcome else {
            Issue.record("a hung server counted as delivered"); return
        }
        #expect(error.code == .transportFailed)
        #expect(result.attempts == 2)
        #expect(server.requests.count == 2)
        #expect(outboxFiles(harness).isEmpty)
        #expect(outboxFiles(harness, failed: true) == ["\(result.idempotencyKey!).json"])
    }

    @Test(arguments: [404, 400, 301])
    func aFinalStatusIsNotRetried(status: Int) async throws {
        let server = try TestHTTPServer { _ in .status(status) }
        let harness = RunnerHarness()
        await harness.runner.submit(Fixtures.firing(actions: [webhook(server.url("/hook"))]), wallTime: "t")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        #expect(result.httpStatus == status)
        #expect(result.attempts == 1)
        #expect(server.requests.count == 1)
        #expect(outboxFiles(harness, failed: true).count == 1)
    }

    @Test(arguments: [408, 429, 503])
    func aRetryableStatusIsRetried(status: Int) async throws {
        let server = try TestHTTPServer { _ in .status(status) }
        let harness = RunnerHarness()
        await harness.runner.submit(
            Fixtures.firing(actions: [webhook(server.url("/hook"), attempts: 3)]), wallTime: "t")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        #expect(result.attempts == 3)
        #expect(server.requests.count == 3)
    }

    @Test func secretsReachTheServerButNeitherTheLogNorTheDisk() async throws {
        let server = try TestHTTPServer { _ in .status(404) }
        let secret = "s3cr3t-token-value"
        let harness = RunnerHarness(environment: ["PATH": "/bin", "CHECKIN_TOKEN": secret])
        let action = webhook(
            server.url("/hook"), json: .object([ConfigMember("ssid", .string("{{ssid}}"))]),
            headers: [("Authorization", "Bearer {{env.CHECKIN_TOKEN}}")])
        await harness.runner.submit(Fixtures.firing(facts: [.ssid: "Office"], actions: [action]), wallTime: "t")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        #expect(server.requests.first?.headerBytes("Authorization") == Array("Bearer \(secret)".utf8))
        #expect(!harness.log.joined().contains(secret))
        #expect(!harness.log.joined().contains("Office"), "the body reached the log")
        let stored = try #require(
            Fixtures.readFile(harness.directory.file("state/outbox/failed/\(result.idempotencyKey!).json")))
        #expect(!String(decoding: stored, as: UTF8.self).contains(secret))
    }

    @Test(arguments: HostileSSIDs.corpus)
    func hostileSSIDArrivesByteExactInURLHeaderAndJSON(ssid: [UInt8]) async throws {
        let server = try TestHTTPServer { _ in .status(204) }
        let harness = RunnerHarness()
        let action = webhook(
            server.url("/hook/{{ssid}}?ssid={{ssid}}"),
            json: .object([
                ConfigMember("ssid", .string("{{ssid}}")), ConfigMember("list", .list([.string("x{{ssid}}")])),
            ]),
            headers: [("X-SSID", "{{ssid}}")])
        await harness.runner.submit(Fixtures.firing(facts: [.ssid: .text(ssid)], actions: [action]), wallTime: "t")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        #expect(result.isSuccess, "\(result)")
        let request = try #require(server.requests.first)
        let target = request.target
        let query = try #require(target.firstIndex(of: UInt8(ascii: "?")))
        #expect(percentDecoded(Array(target[6..<query])) == ssid)
        #expect(percentDecoded(Array(target[(query + 6)...])) == ssid)
        #expect(!target[6..<query].contains(UInt8(ascii: "/")), "the SSID added a path segment")
        #expect(percentDecoded(try #require(request.headerBytes("X-SSID"))) == ssid)
        #expect(
            request.rawHeaders.count(where: { $0.name.lowercased().hasPrefix("x-") }) == 1, "the SSID injected a header"
        )
        #expect(JSONProbe.string(in: request.body, at: ["ssid"]) == ssid)
        #expect(JSONProbe.parse(request.body)?["list"] == .array([.string([UInt8(ascii: "x")] + ssid)]))
    }

    @Test func whenOnlineHoldsDeliveryUntilConnectivityIsOnline() async throws {
        let server = try TestHTTPServer { _ in .status(200) }
        let harness = RunnerHarness()
        await harness.runner.connectivityChanged(to: "portal")
        let log = harness.directory.file("log")
        await harness.runner.submit(
            Fixtures.firing(actions: [webhook(server.url("/hook"), online: true), RunnerHarness.append(log, "next\n")]),
            wallTime: "t")
        let queued = await harness.settledResults(expecting: 2)
        guard case .queued = queued.first(where: { $0.kind == "webhook" })?.outcome else {
            Issue.record("not queued: \(queued)"); return
        }
        #expect(Fixtures.readFile(log) == Array("next\n".utf8), "the firing waited for the held webhook")
        #expect(server.requests.isEmpty)
        #expect(outboxFiles(harness).count == 1)
        #expect(await harness.runner.parkedDeliveries.count == 1)

        await harness.runner.connectivityChanged(to: "online")
        let all = await harness.settledResults(expecting: 3)
        #expect(all.last?.isSuccess == true)
        #expect(server.requests.count == 1)
        #expect(outboxFiles(harness).isEmpty)
    }

    @Test func deliveriesUnparkedTogetherRunAFewAtATime() async throws {
        let inFlight = Mutex((now: 0, most: 0))
        let server = try TestHTTPServer { _ in
            inFlight.withLock {
                $0.now += 1; $0.most = max($0.most, $0.now)
            }
            usleep(30_000)
            inFlight.withLock { $0.now -= 1 }
            return .status(200)
        }
        let harness = RunnerHarness()
        await harness.runner.connectivityChanged(to: "portal")
        for n in 0..<24 {
            await harness.runner.submit(
                Fixtures.firing(rule: "r\(n)", actions: [webhook(server.url("/hook"), online: true)]), wallTime: "t")
        }
        _ = await harness.settledResults(expecting: 24)
        #expect(await harness.runner.parkedDeliveries.count == 24)
        await harness.runner.connectivityChanged(to: "online")
        let all = await harness.settledResults(expecting: 48)
        #expect(all.suffix(24).allSatisfy { $0.isSuccess })
        #expect(server.requests.count == 24)
        let most = inFlight.withLock { $0.most }
        #expect(most >= 2 && most <= 8, "at most 8 deliveries at once, not one per parked webhook: \(most)")
        #expect(outboxFiles(harness).isEmpty)
    }

    @Test func aNewRunnerResumesPendingDeliveriesExactlyOnce() async throws {
        let server = try TestHTTPServer { _ in .status(200) }
        let state = TemporaryDirectory()
        // The first process enqueues while offline and then goes away without delivering.
        do {
            let first = RunnerHarness(stateDirectory: state.path)
            for n in 0..<5 {
                let body = ConfigValue.object([ConfigMember("n", .number(Double(n)))])
                await first.runner.submit(
                    Fixtures.firing(rule: "r\(n)", actions: [webhook(server.url("/hook"), json: body, online: true)]),
                    wallTime: "t")
            }
            _ = await first.settledResults(expecting: 5)
        }
        #expect(server.requests.isEmpty)
        let second = RunnerHarness(stateDirectory: state.path)
        await second.runner.resumeOutbox()
        await second.runner.connectivityChanged(to: "online")
        _ = await second.settledResults(expecting: 5)
        #expect(server.requests.count == 5)
        #expect(Set(server.requests.compactMap(\.idempotencyKey)).count == 5)
        await second.runner.resumeOutbox()
        _ = await second.settledResults(expecting: 5)
        #expect(server.requests.count == 5, "a delivered entry was sent again")
    }
}

/// Plain words for how a delivery failed (issue 10, item 11).
@Suite(.timeLimit(.minutes(1)))
struct WebhookFailureMessageTests {
    private func deliver(_ reply: TestHTTPServer.Reply, attempts: Int = 1) async throws -> (
        ActionResult, RunnerHarness
    ) {
        let server = try TestHTTPServer { _ in reply }
        defer { server.stop() }
        let harness = RunnerHarness()
        let action = WebhookAction(
            url: Fixtures.template(server.url("/hook")), attempts: attempts, backoff: .milliseconds(10))
        await harness.runner.submit(Fixtures.firing(actions: [ActionSpec(action)]), wallTime: "t")
        return (try #require(await harness.settledResults(expecting: 1).first), harness)
    }

    @Test func aRedirectSaysWhereToAndThatItIsNotFollowed() async throws {
        let (result, _) = try await deliver(.redirect(302, "http://127.0.0.1:9/new"))
        #expect(result.description.contains("redirected (HTTP 302) to http://127.0.0.1:9/new"), "\(result)")
        #expect(!result.description.contains("HTTP 302, HTTP 302"))
        #expect(result.description.ranges(of: "HTTP 302").count == 1, "\(result)")
    }

    @Test func aServerThatDoesNotSpeakHTTPIsNamedAsSuch() async throws {
        let (result, _) = try await deliver(.raw("SSH-2.0-OpenSSH_9.2\r\n"))
        #expect(result.description.contains("did not answer in HTTP"), "\(result)")
        #expect(!result.description.contains("unusable"))
    }

    @Test func theFailedEntryCountsEveryAttempt() async throws {
        let (result, harness) = try await deliver(.status(500), attempts: 3)
        #expect(result.attempts == 3)
        let failed = harness.directory.file("state/outbox/failed")
        let name = try #require(try sys_listDirectory(failed).get(call: "list").first { $0.hasSuffix(".json") })
        let stored = String(decoding: try #require(Fixtures.readFile(failed + "/" + name)), as: UTF8.self)
        #expect(stored.contains(#""attemptsMade":3"#), "\(stored)")
    }
}
