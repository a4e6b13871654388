import NetRulesCore
import NetRulesMQTT
import NetRulesTesting
import Testing

/// With `mqtt: commands: true` the discovery config has a `switch` per rule, on the rule's own
/// `set` and `state` topics, whatever characters the rule's name holds (issue 33, item 8).
@Suite(.timeLimit(.minutes(1)))
struct RuleSwitchDocumentTests {
    static let device = FleetDocuments.Device(
        clientID: "laptop-7", name: "Anna's laptop", version: "0.1.0", prefix: "netrules/laptop-7",
        discoveryPrefix: "homeassistant", published: ["ssid"],
        rules: ["office-check-in", "Office check in", "a/b+#", "café"], places: [], commands: true)

    static func member(_ component: JSONValue, _ key: String) -> String? {
        guard case .object(let members) = component else { return nil }
        return members.first { $0.0 == key }?.1.stringValue
    }

    @Test func eachRuleIsASwitchOnItsOwnTopicsThatHomeAssistantAccepts() throws {
        let payload = FleetDocuments.discovery(Self.device)
        #expect(HomeAssistantDiscoveryRules.problems(topic: Self.device.topic, payload: payload) == [])
        let switches = FleetDocuments.components(Self.device).filter { Self.member($0.1, "p") == "switch" }
        #expect(
            switches.map(\.0) == [
                "laptop-7_rule_switch_office-check-in", "laptop-7_rule_switch_Office_check_in-240fad44",
                "laptop-7_rule_switch_a_b__-\(FleetDocuments.ruleLevel("a/b+#").suffix(8))",
                "laptop-7_rule_switch_caf_-\(FleetDocuments.ruleLevel("café").suffix(8))",
            ])
        let office = try #require(switches.first?.1)
        #expect(Self.member(office, "name") == "Rule office-check-in")
        #expect(Self.member(office, "cmd_t") == "netrules/laptop-7/rule/office-check-in/set")
        #expect(Self.member(office, "stat_t") == "netrules/laptop-7/rule/office-check-in/state")
        #expect(Self.member(office, "pl_on") == "ON")
        #expect(Self.member(office, "pl_off") == "OFF")
        #expect(Self.member(office, "default_entity_id") == "switch.laptop_7_rule_switch_office_check_in")
        // The name is shown as written, the topic level is safe.
        let slash = try #require(switches.first { Self.member($0.1, "name") == "Rule a/b+#" }?.1)
        let topic = try #require(Self.member(slash, "cmd_t"))
        #expect(topic.split(separator: "/").count == 5)
        #expect(
            !topic.dropFirst("netrules/laptop-7/rule/".count).dropLast("/set".count).contains { "/+#".contains($0) })
        #expect(MQTTSettings.publishTopicProblem(topic) == nil)
    }

    @Test func withoutCommandsThereIsNoSwitchAndTurningThemOffRemovesThem() {
        var plain = Self.device
        plain.commands = false
        #expect(!FleetDocuments.components(plain).contains { Self.member($0.1, "p") == "switch" })
        let removed = FleetDocuments.removedComponents(from: Self.device, to: plain)
        #expect(removed.count == 4)
        #expect(removed.allSatisfy { $0.platform == "switch" })
        #expect(
            HomeAssistantDiscoveryRules.problems(
                topic: plain.topic, payload: FleetDocuments.discovery(plain, removed: removed)) == [])
    }

    @Test(arguments: [
        ("office-check-in", "office-check-in"), ("a_B-9", "a_B-9"),
        ("Office check in", "Office_check_in-240fad44"),
        (String(repeating: "x", count: 65), String(repeating: "x", count: 48) + "-"),
    ])
    func aRuleNameThatCannotBeATopicLevelGetsASafeOne(name: String, level: String) {
        let made = FleetDocuments.ruleLevel(name)
        #expect(made.hasPrefix(level))
        #expect(made == FleetDocuments.ruleLevel(name), "the same on every run")
        // A client id's characters are a topic level's and a component id's, 1 to 64 of them.
        #expect(MQTTSettings.isValidClientID(made))
    }

    /// A name that spells another's level: neither takes commands, so no level means two rules.
    @Test func twoRulesWithTheSameLevelTakeNoCommands() {
        let odd = "Office check in"
        let rules = FleetDocuments.commandRules([odd, FleetDocuments.ruleLevel(odd), "home"])
        #expect(rules.map(\.rule) == ["home"])
    }
}
