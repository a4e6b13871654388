import Foundation
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// The outbox's limits with the real runner over real files (issue 21, row 6): pending entries per
/// rule, overall and by bytes, each drop moved to `failed/` with its reason and reported; `failed/`
/// rotated by count and by age.
@Suite(.timeLimit(.minutes(2)))
struct OutboxLimitTests {
    /// A webhook held for `online` (the tests keep the network at `portal`), so each one stays pending.
    static func held(body size: Int = 0) -> ActionSpec {
        let json: ConfigValue = .object([ConfigMember("pad", .string(String(repeating: "x", count: size)))])
        return ActionSpec(
            WebhookAction(
                url: Fixtures.template("http://127.0.0.1:9/hook"), body: .json(json), attempts: 3,
                backoff: .milliseconds(10), waitsForOnline: true))
    }

    static func limits(
        perRule: Int = 100, pending: Int = 1_000, bytes: Int = 16 << 20, failed: Int = 1_000,
        failedAge: Duration = .seconds(30 * 86_400)
    ) -> OutboxLimits {
        OutboxLimits(
            pendingPerRule: perRule, pending: pending, pendingBytes: bytes, failed: failed, failedAge: failedAge)
    }

    /// The `*.json` files of `outbox/` or `outbox/failed/`, sorted.
    static func files(_ harness: RunnerHarness, failed: Bool = false) -> [String] {
        let directory = harness.directory.file("state/outbox") + (failed ? "/failed" : "")
        return ((try? sys_listDirectory(directory).get(call: "list")) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    static func decode(_ harness: RunnerHarness, failed name: String) throws -> OutboxEntry {
        let bytes = try #require(Fixtures.readFile(harness.directory.file("state/outbox/failed/" + name)))
        return try OutboxEntry(decoding: bytes)
    }

    /// Submits one held webhook firing of `rule` and waits for it to be reported.
    static func queue(_ harness: RunnerHarness, rule: String, body: Int = 0, total: Int) async -> [ActionResult] {
        await harness.runner.submit(Fixtures.firing(rule: rule, actions: [held(body: body)]), wallTime: "t")
        return await harness.settledResults(expecting: total)
    }

    /// The idempotency keys of the webhooks reported queued, in order.
    static func queuedKeys(_ results: [ActionResult]) -> [String] {
        results.compactMap { result in
            guard case .queued = result.outcome else { return nil }
            return result.idempotencyKey
        }
    }

    /// The results of drops, by key, with their error message.
    static func drops(_ results: [ActionResult]) -> [(key: String, message: String)] {
        results.compactMap { result in
            guard case .failed(let error) = result.outcome, error.code == .outboxFull, let key = result.idempotencyKey
            else { return nil }
            return (key, error.message)
        }
    }

    @Test func aRuleAtItsLimitMovesItsOldestDeliveryToFailedWithTheReason() async throws {
        let harness = RunnerHarness(outboxLimits: Self.limits(perRule: 3))
        await harness.runner.connectivityChanged(to: "portal")
        var results: [ActionResult] = []
        for n in 1...5 { results = await Self.queue(harness, rule: "flapping", total: n + max(0, n - 3)) }
        _ = await Self.queue(harness, rule: "calm", total: 8)
        results = await harness.settledResults(expecting: 8)

        let queued = Self.queuedKeys(results)
        let drops = Self.drops(results)
        #expect(drops.map(\.key) == Array(queued.prefix(2)), "the two oldest of the rule, in order")
        #expect(drops.allSatisfy { $0.message.contains("rule 'flapping' has 3 deliveries pending") })
        #expect(drops.allSatisfy { $0.message.contains("(--outbox-rule-limit)") })
        #expect(results.filter { Self.drops([$0]).count == 1 }.allSatisfy { $0.rule == "flapping" && $0.index == 0 })
        #expect(Self.files(harness) == queued.dropFirst(2).map { $0 + ".json" }.sorted())
        #expect(Self.files(harness, failed: true) == drops.map { $0.key + ".json" }.sorted())
        let failed = try Self.decode(harness, failed: drops[0].key + ".json")
        #expect(failed.failure?.hasPrefix("dropped: rule 'flapping' has 3 deliveries pending") == true)
        #expect(await harness.runner.parkedDeliveries == queued.dropFirst(2).sorted(), "dropped ones are not parked")
        let logged = harness.log.filter { $0.contains("dropped: rule 'flapping'") }
        #expect(logged.count == 2, "\(harness.log)")
        let size = await harness.runner.outboxSize()
        #expect(size == OutboxSize(pending: 4, pendingBytes: size.pendingBytes, failed: 2))
        #expect(size.pendingBytes == Self.files(harness).map { Self.size(harness, $0) }.reduce(0, +))
    }

    @Test func theOverallLimitDropsTheOldestDeliveryOfAnyRule() async throws {
        let harness = RunnerHarness(outboxLimits: Self.limits(pending: 3))
        await harness.runner.connectivityChanged(to: "portal")
        var results: [ActionResult] = []
        for (n, rule) in ["a", "b", "c", "d", "d"].enumerated() {
            results = await Self.queue(harness, rule: rule, total: n + 1 + max(0, n - 2))
        }
        let queued = Self.queuedKeys(results)
        let drops = Self.drops(results)
        #expect(drops.map(\.key) == Array(queued.prefix(2)))
        #expect(results.filter { Self.drops([$0]).count == 1 }.map(\.rule) == ["a", "b"])
        #expect(
            drops.allSatisfy {
                $0.message.contains("3 deliveries are pending, the most the outbox keeps (--outbox-limit)")
            })
        #expect(Self.files(harness).count == 3)
        #expect(Self.files(harness, failed: true).count == 2)
    }

    @Test func theByteLimitDropsTheOldestUntilTheNewDeliveryFits() async throws {
        let harness = RunnerHarness(outboxLimits: Self.limits(bytes: 8 << 10))
        await harness.runner.connectivityChanged(to: "portal")
        // About 2.5 KiB each once stored (the body in base64): three fit in 8 KiB, a fourth does not.
        var results: [ActionResult] = []
        for n in 1...3 { results = await Self.queue(harness, rule: "r\(n)", body: 1_500, total: n) }
        #expect(Self.drops(results).isEmpty)
        let stored = Self.files(harness).map { Self.size(harness, $0) }
        #expect(stored.count == 3 && stored.reduce(0, +) <= 8 << 10 && stored.reduce(0, +) + stored[0] > 8 << 10)
        results = await Self.queue(harness, rule: "r4", body: 1_500, total: 5)
        let drops = Self.drops(results)
        #expect(drops.map(\.key) == [Self.queuedKeys(results)[0]])
        #expect(drops.first?.message.contains("reached 8 KiB, the most the outbox keeps (--outbox-bytes)") == true)
        #expect(Self.files(harness).map { Self.size(harness, $0) }.reduce(0, +) <= 8 << 10)
        let size = await harness.runner.outboxSize()
        #expect(size.pending == 3 && size.failed == 1)
    }

    @Test func aDeliveryLargerThanTheWholeOutboxIsRefusedAndNothingIsDropped() async throws {
        let harness = RunnerHarness(outboxLimits: Self.limits(bytes: 4 << 10))
        await harness.runner.connectivityChanged(to: "portal")
        _ = await Self.queue(harness, rule: "small", total: 1)
        let results = await Self.queue(harness, rule: "big", body: 5_000, total: 2)
        guard case .failed(let error) = results.last?.outcome else {
            Issue.record("a delivery larger than the outbox was queued: \(results)")
            return
        }
        #expect(error.code == .outboxFull)
        #expect(error.message.contains("not queued: the delivery's "), "\(error.message)")
        #expect(error.message.contains("(--outbox-bytes 4 KiB)"))
        #expect(Self.files(harness).count == 1, "the small one stays")
        #expect(Self.files(harness, failed: true).isEmpty)
    }

    @Test func aRestartWithLowerLimitsDropsTheOldestOfWhatWasLeft() async throws {
        let state = TemporaryDirectory()
        var keys: [String] = []
        do {
            let first = RunnerHarness(stateDirectory: state.path)
            await first.runner.connectivityChanged(to: "portal")
            var results: [ActionResult] = []
            for n in 1...5 { results = await Self.queue(first, rule: "r", total: n) }
            keys = Self.queuedKeys(results)
        }
        let second = RunnerHarness(stateDirectory: state.path, outboxLimits: Self.limits(perRule: 2))
        await second.runner.resumeOutbox()
        let results = await second.settledResults(expecting: 3)
        #expect(Self.drops(results).map(\.key) == Array(keys.prefix(3)))
        #expect(await second.runner.parkedDeliveries == keys.suffix(2).sorted())
        let size = await second.runner.outboxSize()
        #expect(size.pending == 2 && size.failed == 3)
    }

    @Test func failedKeepsTheNewestFilesAndSaysHowManyItDeleted() async throws {
        let server = try TestHTTPServer { _ in .status(404) }
        let harness = RunnerHarness(outboxLimits: Self.limits(failed: 2))
        var keys: [String] = []
        for n in 1...4 {
            let action = WebhookAction(url: Fixtures.template(server.url("/hook")), attempts: 1)
            await harness.runner.submit(Fixtures.firing(rule: "r", actions: [ActionSpec(action)]), wallTime: "t")
            keys = await harness.settledResults(expecting: n).compactMap(\.idempotencyKey)
        }
        #expect(Self.files(harness, failed: true) == keys.suffix(2).map { $0 + ".json" }.sorted())
        let rotations = harness.log.filter { $0.hasPrefix("outbox: deleted the oldest 1 file from failed/") }
        #expect(rotations.count == 2, "\(harness.log)")
        #expect(rotations.first?.hasSuffix("which keeps 2 (--outbox-failed-limit)") == true)
        let failed = try Self.decode(harness, failed: keys[3] + ".json")
        #expect(failed.failure == "the server refused the request with HTTP 404")
    }

    @Test func failedFilesOlderThanTheAgeAreDeletedAtStart() async throws {
        let harness = RunnerHarness(outboxLimits: Self.limits(failedAge: .seconds(7 * 86_400)))
        let failed = harness.directory.file("state/outbox/failed")
        try AtomicFile.makeDirectories(failed)
        for (name, daysAgo) in [("old", 8), ("older", 40), ("recent", 6)] {
            try AtomicFile.replace(failed + "/\(name).json", with: Array("{}".utf8), mode: 0o600)
            let then = time(nil) - daysAgo * 86_400
            var times = [timespec(tv_sec: then, tv_nsec: 0), timespec(tv_sec: then, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, failed + "/\(name).json", &times, 0) == 0)
        }
        await harness.runner.resumeOutbox()
        #expect(Self.files(harness, failed: true) == ["recent.json"])
        #expect(harness.log.contains("outbox: deleted 2 files from failed/ older than 7d (--outbox-failed-age)"))
    }

    static func size(_ harness: RunnerHarness, _ name: String) -> Int {
        Fixtures.readFile(harness.directory.file("state/outbox/" + name))?.count ?? 0
    }
}

/// The choice of what makes room, without files.
@Suite(.timeLimit(.minutes(1)))
struct OutboxLedgerTests {
    static func item(_ key: String, rule: String = "r", at time: Int64, bytes: Int = 100) -> OutboxLedger.Item {
        let entry = OutboxEntry(
            idempotencyKey: key, rule: rule, edge: "enter", actionIndex: 0, enqueuedAt: time, method: "POST",
            url: "http://127.0.0.1/", headers: [], timeoutMilliseconds: 1_000, attempts: 1, attemptsMade: 0,
            backoffMilliseconds: 10, waitsForOnline: true)
        return OutboxLedger.Item(entry, bytes: bytes)
    }

    static func ledger(perRule: Int = 100, pending: Int = 100, bytes: Int = 1 << 20) -> OutboxLedger {
        OutboxLedger(limits: OutboxLimitTests.limits(perRule: perRule, pending: pending, bytes: bytes))
    }

    @Test func anEntryBeingAttemptedIsNeverDroppedTheNextOldestIs() {
        var ledger = Self.ledger(perRule: 2)
        ledger.insert(Self.item("a", at: 1))
        ledger.insert(Self.item("b", at: 2))
        guard case .admitted(let drops) = ledger.admit(Self.item("c", at: 3), busy: ["a"]) else {
            Issue.record("refused although b could make room")
            return
        }
        #expect(drops.map(\.item.key) == ["b"])
        #expect(ledger.count == 2 && ledger.contains("a") && ledger.contains("c"))
    }

    @Test func whenEveryEntryIsBeingAttemptedTheNewOneIsRefusedAndNothingChanges() {
        var ledger = Self.ledger(pending: 2)
        ledger.insert(Self.item("a", rule: "x", at: 1))
        ledger.insert(Self.item("b", rule: "y", at: 2))
        let admission = ledger.admit(Self.item("c", rule: "z", at: 3), busy: ["a", "b"])
        guard case .refused(let reason) = admission else {
            Issue.record("admitted beyond the limit: \(admission)")
            return
        }
        #expect(reason.hasPrefix("not queued: 2 deliveries are pending"))
        #expect(reason.hasSuffix("none can make room, all are being attempted"))
        #expect(ledger.count == 2 && ledger.bytes == 200 && !ledger.contains("c"))
    }

    @Test func entriesOutOfOrderAreStillDroppedOldestFirst() {
        var ledger = Self.ledger(perRule: 10, pending: 10, bytes: 350)
        for (key, time) in [("m", 5), ("e", 1), ("z", 9)] { ledger.insert(Self.item(key, at: Int64(time))) }
        guard case .admitted(let drops) = ledger.admit(Self.item("n", at: 10, bytes: 200), busy: []) else {
            Issue.record("refused")
            return
        }
        #expect(drops.map(\.item.key) == ["e", "m"])
        #expect(drops.allSatisfy { $0.reason.hasPrefix("dropped: the pending deliveries reached 350 B") })
        #expect(ledger.bytes == 300)
    }

    @Test func enforcingAtStartDropsPerRuleThenOverall() {
        var ledger = Self.ledger(perRule: 2, pending: 3)
        for n in 0..<4 { ledger.insert(Self.item("x\(n)", rule: "x", at: Int64(n))) }
        ledger.insert(Self.item("y0", rule: "y", at: 10))
        ledger.insert(Self.item("y1", rule: "y", at: 11))
        let drops = ledger.enforce(busy: [])
        #expect(drops.map(\.item.key) == ["x0", "x1", "x2"])
        #expect(drops.prefix(2).allSatisfy { $0.reason.contains("(--outbox-rule-limit)") })
        #expect(drops.last?.reason.contains("(--outbox-limit)") == true)
        #expect(ledger.count == 3 && ledger.count(of: "x") == 1)
    }
}

/// The queue of deliveries waiting for a slot.
@Suite(.timeLimit(.minutes(1)))
struct DeliveryQueueTests {
    static func entry(_ key: String) -> OutboxEntry {
        OutboxEntry(
            idempotencyKey: key, rule: "r", edge: "enter", actionIndex: 0, enqueuedAt: 0, method: "POST",
            url: "http://127.0.0.1/", headers: [], timeoutMilliseconds: 1_000, attempts: 1, attemptsMade: 0,
            backoffMilliseconds: 10, waitsForOnline: false)
    }

    @Test func entriesLeaveInOrderAndARemovedOneIsSkipped() {
        var queue = DeliveryQueue()
        for key in ["a", "b", "c", "d"] { queue.append(Self.entry(key)) }
        #expect(queue.remove(key: "b")?.idempotencyKey == "b")
        queue.append(Self.entry("a"))
        #expect(queue.count == 3)
        var order: [String] = []
        while let entry = queue.popFirst() { order.append(entry.idempotencyKey) }
        #expect(order == ["a", "c", "d"])
        #expect(queue.isEmpty)
    }

    /// The queue used to keep every entry it ever held while it was never empty.
    @Test func aQueueThatIsNeverEmptyKeepsOnlyWhatWaits() {
        var queue = DeliveryQueue()
        for n in 0..<10 { queue.append(Self.entry("k\(n)")) }
        for n in 10..<100_000 {
            queue.append(Self.entry("k\(n)"))
            _ = queue.popFirst()
            if n % 5 == 0 {
                // A hole in the middle, as a drop of a waiting entry leaves.
                queue.append(Self.entry("extra\(n)"))
                queue.remove(key: "k\(n - 3)")
            }
        }
        #expect(queue.count >= 10, "it never ran empty")
        #expect(queue.storageCount <= 2 * queue.count + 64, "\(queue.storageCount) slots for \(queue.count) entries")
    }
}

/// The index of `failed/` that spares a directory scan after every move.
@Suite(.timeLimit(.minutes(1)))
struct FailedIndexTests {
    static func files(_ pairs: [(String, Int64)]) -> [FailedIndex.File] {
        pairs.map { FailedIndex.File(name: $0.0, modified: $0.1) }
    }

    @Test func itScansOnceThenFollowsTheMovesItIsTold() {
        let index = FailedIndex(rescanInterval: 100)
        var scans = 0
        let listing = Self.files([("c", 30), ("a", 10), ("b", 20)])
        let first = index.takeVictims(keeping: 2, olderThan: 0) {
            scans += 1
            return listing
        }
        #expect(first.map(\.name) == ["a"] && first.allSatisfy { !$0.expired })
        index.recordMove(name: "d", at: 40)
        let second = index.takeVictims(keeping: 2, olderThan: 25) {
            scans += 1
            return listing
        }
        #expect(second.map(\.name) == ["b"] && second.allSatisfy(\.expired))
        #expect(scans == 1)
    }

    @Test func afterItsIntervalItScansAgainAndSeesWhatAPersonDeleted() {
        let index = FailedIndex(rescanInterval: 2)
        _ = index.takeVictims(keeping: 10, olderThan: 0) { Self.files([("a", 1), ("b", 2), ("c", 3)]) }
        index.recordMove(name: "d", at: 4)
        index.recordMove(name: "e", at: 5)
        // Someone deleted a, b and c meanwhile: with three kept, nothing may go.
        let victims = index.takeVictims(keeping: 3, olderThan: 0) { Self.files([("d", 4), ("e", 5)]) }
        #expect(victims.isEmpty)
    }
}
