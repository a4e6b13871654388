import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// Delivered entries leave the outbox in groups, one directory fsync per group (issue 36).
@Suite(.timeLimit(.minutes(1)))
struct OutboxRemovalsTests {
    @Test func removalsAskedForTogetherShareTheirDirectoryFsyncs() async throws {
        let directory = TemporaryDirectory()
        let outbox = Outbox(stateDirectory: directory.file("state"))
        let webhook = WebhookAction(url: Fixtures.template("http://127.0.0.1:1/hook"), attempts: 1)
        let context = Fixtures.context(Fixtures.firing(actions: [ActionSpec(webhook)]))
        let entries = (0..<100).map { _ in WebhookRendering.entry(for: webhook, in: context, actionIndex: 0) }
        for entry in entries { try outbox.store(entry) }
        #expect(outbox.pending().entries.count == 100)
        let removals = OutboxRemovals(outbox: outbox, loop: .testLoop)
        let failures = await withTaskGroup(of: ActionError?.self) { group in
            for entry in entries { group.addTask { await removals.remove(entry) } }
            return await group.reduce(into: 0) { count, error in count += error == nil ? 0 : 1 }
        }
        #expect(failures == 0)
        // Every removal returned after its group's fsync: none is left to see.
        #expect(outbox.pending().entries.isEmpty)
        #expect(removals.groups >= 1 && removals.groups < 100, "groups: \(removals.groups)")
    }

    @Test func aRemovalThatCannotBeMadeSaysWhy() async throws {
        let directory = TemporaryDirectory()
        // No outbox directory: the fsync of it fails, so no removal is promised.
        let outbox = Outbox(stateDirectory: directory.file("state"))
        let webhook = WebhookAction(url: Fixtures.template("http://127.0.0.1:1/hook"), attempts: 1)
        let entry = WebhookRendering.entry(
            for: webhook, in: Fixtures.context(Fixtures.firing(actions: [ActionSpec(webhook)])), actionIndex: 0)
        let error = await OutboxRemovals(outbox: outbox, loop: .testLoop).remove(entry)
        #expect(error?.message.contains("cannot remove the outbox entry") == true, "\(String(describing: error))")
    }
}
