import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// One link's messages as facts `mqtt.NAME`: which subscriptions a message sets, the refusal
/// logged once per run, and everything known made unknown again when the link goes down.
@Suite(.timeLimit(.minutes(1)))
struct SubscribedFactsUnitTests {
    static let subscriptions: [MQTTSettings.Subscription] = [
        .init(name: "door", topic: "office/door"), .init(name: "any", topic: "office/#"),
        .init(name: "temp", topic: "sensors/+/temp"),
    ]

    @Test func aMessageSetsEverySubscriptionItMatchesAndNoOther() throws {
        var facts = SubscribedFacts(Self.subscriptions, logger: .disabled)
        let first = facts.message(topic: "office/door", payload: Array("open".utf8))
        let update = try #require(first)
        #expect(update.changes == ["mqtt.door": .value(.string("open")), "mqtt.any": .value(.string("open"))])
        #expect(facts.message(topic: "elsewhere", payload: Array("open".utf8)) == nil)
        let second = facts.message(topic: "sensors/hall/temp", payload: Array("21.5".utf8))
        let temp = try #require(second)
        #expect(temp.changes == ["mqtt.temp": .value(.number(21.5))])
    }

    @Test func aDisconnectMakesWhatWasKnownUnknownOnce() throws {
        var facts = SubscribedFacts(Self.subscriptions, logger: .disabled)
        #expect(facts.forgetAll() == nil)
        _ = facts.message(topic: "sensors/hall/temp", payload: Array("null".utf8))
        let forgetting = facts.forgetAll()
        let forgotten = try #require(forgetting)
        #expect(forgotten.changes == ["mqtt.temp": .unknown])
        #expect(facts.forgetAll() == nil)
    }

    @Test func refusalsAreLoggedOncePerRunWithTheTopicEscaped() throws {
        let log = CapturingLogSink()
        var facts = SubscribedFacts(Self.subscriptions, logger: log.logger())
        let big = [UInt8](repeating: 0x1B, count: 4096)
        for _ in 0..<3 {
            let refused = facts.message(topic: "sensors/\u{1b}[2J/temp", payload: big)
            let update = try #require(refused)
            #expect(update.changes == ["mqtt.temp": .unknown])
        }
        #expect(log.messages.count == 1, "\(log.messages)")
        let line = try #require(log.messages.first)
        #expect(line.contains(#"sensors/\x1b[2J/temp"#) && !line.contains("\u{1b}"), "\(line)")
        #expect(line.contains("4096 bytes long"))
        _ = facts.message(topic: "sensors/a/temp", payload: Array("20".utf8))
        _ = facts.message(topic: "sensors/a/temp", payload: big)
        #expect(log.messages.count == 2, "a new run of refusals is logged again")
    }
}
