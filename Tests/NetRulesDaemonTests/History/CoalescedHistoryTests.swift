import NetRulesActions
import NetRulesCore
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// Coalesced firings in the history (issue 34, point 4): a dropped one reads `dropped:
/// coalesced`, and the firing that ran meanwhile notes how many edges coalesced.
@Suite(.timeLimit(.minutes(1)))
struct CoalescedHistoryTests {
    static func entry(_ id: String, edge: Edge = .enter) -> HistoryEntry {
        HistoryEntry(
            id: id, time: "2026-12-01T08:00:00Z", rule: "vpn", edge: edge, facts: [],
            actions: [.init(type: "run", rendered: "vpn-up")])
    }

    @Test func theRunningFiringNotesHowManyEdgesCoalesced() throws {
        var entry = Self.entry("f-1")
        var result = ActionResult(rule: "vpn", edge: .enter, index: 0, kind: "run")
        result.firingID = "f-1"
        result.coalescedEdges = 3
        entry.apply(result)
        #expect(entry.coalesced == 3)
        #expect(entry.dropped == nil)
        let text = HistoryText.block(entry, utcOffset: { _ in 0 })
        #expect(text.contains("  note    3 edges coalesced while it ran\n"), "\(text)")
        #expect(entry.document.compact.contains(#""coalesced":3"#))
        #expect(HistoryEntry(document: entry.document) == entry)
    }

    @Test func aCoalescedFiringReadsDroppedCoalesced() {
        var entry = Self.entry("f-2", edge: .exit)
        var result = ActionResult(
            rule: "vpn", edge: .exit, index: 0, kind: "run", outcome: .skipped(reason: "coalesced: 'exit' then 'enter'")
        )
        result.firingID = "f-2"
        result.coalesced = .enter
        entry.apply(result)
        #expect(entry.dropped == HistoryEntry.Drop(reason: "coalesced"))
        let text = HistoryText.block(entry, utcOffset: { _ in 0 })
        #expect(text.contains("dropped: coalesced (a later edge of the rule cancelled or replaced it"), "\(text)")
        #expect(!text.contains("vpn-up"))
    }
}
