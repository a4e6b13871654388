import Testing

@testable import NetRulesCore

/// Topic filters against topics with levels not known before the daemon runs: what `check`
/// refuses in `subscribe:` (a filter hearing the daemon's own topics).
@Suite(.timeLimit(.minutes(1)))
struct MQTTTopicPatternTests {
    static let client = MQTTTopicPattern.Level.any(placeholder: "<client id>")
    static let state = MQTTTopicPattern([.exact("netrules"), client, .exact("state")])
    static let rules = MQTTTopicPattern([.exact("netrules"), client, .exact("rule"), .rest(placeholder: "<rule>/set")])
    static let system = MQTTTopicPattern(topic: "$SYS/broker/load")

    @Test(arguments: [
        // An unknown level matches whatever the filter has there.
        (state, "netrules/+/state", true),
        (state, "netrules/laptop-7/state", true),
        (state, "netrules/#", true),
        (state, "#", true),
        (state, "+/+/state", true),
        (state, "netrules/+/+", true),
        (state, "netrules/+/state/#", true),
        (state, "netrules/+", false),
        (state, "netrules/+/event", false),
        (state, "netrules/+/state/x", false),
        (state, "office/+/state", false),
        (state, "+/+/+/+", false),
        // `<prefix>/rule/…` is one level or more below `rule`.
        (rules, "netrules/+/rule/#", true),
        (rules, "netrules/+/rule/+/set", true),
        (rules, "netrules/+/rule/office/set", true),
        (rules, "netrules/+/rule/+", true),
        (rules, "netrules/+/rule/a/b/c", true),
        (rules, "netrules/+/rule", false),
        (rules, "netrules/+/rules/#", false),
        // A topic starting with `$` matches no filter starting with a wildcard.
        (system, "#", false),
        (system, "+/broker/load", false),
        (system, "$SYS/#", true),
        (system, "$SYS/+/load", true),
    ])
    func aFilterMatchesAPatternAsMQTTWould(pattern: MQTTTopicPattern, filter: String, matches: Bool) {
        #expect(pattern.isMatched(by: filter) == matches, "\(filter) against \(pattern)")
    }

    @Test func aPatternReadsWithItsPlaceholders() {
        #expect(Self.state.description == "netrules/<client id>/state")
        #expect(Self.rules.description == "netrules/<client id>/rule/<rule>/set")
        #expect(MQTTTopicPattern(topic: "a/b").levels == [.exact("a"), .exact("b")])
    }

    @Test func theDaemonsOwnTopicsFollowItsSettings() {
        var settings = MQTTSettings(broker: .unix(path: "/run/mqtt.sock"))
        #expect(
            settings.ownTopics.map(\.pattern.description) == [
                "netrules/<client id>/state", "netrules/<client id>/event", "netrules/<client id>/availability",
                "netrules/<client id>/rule/<rule>/set", "homeassistant/device/<client id>/config",
            ])
        #expect(settings.ownTopics.map(\.isCommand) == [false, false, false, true, false])
        settings.clientID = "laptop-7"
        settings.topicPrefix = "fleet/me"
        settings.discovery = nil
        #expect(
            settings.ownTopics.map(\.pattern.description) == [
                "fleet/me/state", "fleet/me/event", "fleet/me/availability", "fleet/me/rule/<rule>/set",
            ])
        #expect(!settings.ownTopics.contains { $0.pattern.isMatched(by: "netrules/+/state") })
    }
}
