import NetRulesConfig
import NetRulesCore
import Testing

/// The `mqtt:` action in a rule file: what it reads, its defaults, and a positioned error for each
/// topic that could publish elsewhere than written (issue 25).
@Suite(.timeLimit(.minutes(1)))
struct MQTTActionConfigTests {
    static let section = "mqtt:\n  broker: mqtt://127.0.0.1\n"

    static func load(_ action: String, section: String = Self.section, files: [String] = []) -> LoadResult {
        let text =
            "version: 1\n" + section + "rules:\n  - name: office\n    when: { ssid: Office }\n    do:\n      - "
            + action
            + "\n"
        let loader = RuleLoader()
        return loader.load(
            ([text] + files).enumerated().map { RuleSource(file: "f\($0.offset).yaml", bytes: Array($0.element.utf8)) })
    }

    static func headlines(_ result: LoadResult) -> [String] {
        MQTTSettingsTests.headlines(result)
    }

    @Test func anActionReadsTopicPayloadQoSAndRetainWithQoS1AsTheDefault() throws {
        let result = Self.load(#"mqtt: { topic: "office/{{ssid}}/checkins", json: { who: "{{ssid}}" } }"#)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        let action = try #require(result.ruleSet.rules.first?.actions.first?.action.mqtt)
        #expect(action.topic.source == "office/{{ssid}}/checkins")
        #expect(action.qos == 1)
        #expect(action.retain == false)
        guard case .json = action.payload else {
            Issue.record("json: was not read as a JSON payload")
            return
        }
        let text = Self.load(#"mqtt: { topic: "t/x", payload: "hello {{ssid}}", qos: 0, retain: true }"#)
        let plain = try #require(text.ruleSet.rules.first?.actions.first?.action.mqtt)
        #expect(plain.qos == 0 && plain.retain)
        guard case .text(let template) = plain.payload else {
            Issue.record("payload: was not read as text")
            return
        }
        #expect(template.source == "hello {{ssid}}")
    }

    @Test func anActionWithoutAnMQTTSectionIsAnErrorAtTheAction() {
        let result = Self.load(#"mqtt: { topic: "t/x" }"#, section: "")
        #expect(
            Self.headlines(result) == [
                "f0.yaml:6:15: error: an mqtt action needs an 'mqtt:' section with the broker, in one of the rule files"
            ])
        // The section may be in another file of the rule set.
        let other = Self.load(
            #"mqtt: { topic: "t/x" }"#, section: "", files: ["version: 1\n" + Self.section + "rules: []\n"])
        #expect(!other.hasErrors, "\(other.renderedDiagnostics())")
    }

    @Test(arguments: [
        (
            #""office-{{ssid}}""#,
            "f0.yaml:8:25: error: a placeholder must fill a whole topic level, such as 'office/{{ssid}}'"
        ),
        (#""a/+/b""#, "f0.yaml:8:27: error: '+' is a wildcard and cannot be in a topic one publishes to"),
        (#""a/#""#, "f0.yaml:8:27: error: '#' is a wildcard and cannot be in a topic one publishes to"),
        (#""a//b""#, "f0.yaml:8:27: error: the topic has an empty level (a leading, trailing or doubled '/')"),
        (#""a/""#, "f0.yaml:8:27: error: the topic has an empty level (a leading, trailing or doubled '/')"),
        (
            #""t/{{env.TOKEN}}""#,
            "f0.yaml:8:27: error: a topic cannot read {{env.NAME}}: every subscriber sees the topic"
        ),
        (#""""#, "f0.yaml:8:25: error: the topic is empty"),
    ])
    func aTopicThatCouldPublishElsewhereIsRefusedAtItsPosition(topic: String, expected: String) {
        let result = Self.load("mqtt: { topic: \(topic) }")
        #expect(Self.headlines(result) == [expected])
    }

    @Test func badQoSAndTwoPayloadsAreErrors() {
        let qos = Self.load(#"mqtt: { topic: "t/x", qos: 2 }"#)
        #expect(Self.headlines(qos).count == 1)
        #expect(Self.headlines(qos).first?.hasPrefix("f0.yaml:8:36: error:") == true, "\(Self.headlines(qos))")
        let both = Self.load(#"mqtt: { topic: "t/x", json: { a: 1 }, payload: "b" }"#)
        #expect(Self.headlines(both) == ["f0.yaml:8:47: error: 'json' and 'payload' cannot be combined"])
        let unknown = Self.load(#"mqtt: { topic: "t/x", qso: 1 }"#)
        #expect(Self.headlines(unknown).count == 1)
    }

    /// The values a firing brings may only fill their own level.
    @Test func aFiringsValuesThatWouldLeaveTheirLevelRefuseTheTopic() throws {
        let action = MQTTAction(topic: try Template("office/{{ssid}}/in"), payload: .none)
        func topic(_ ssid: [UInt8]) -> Result<String, MQTTAction.TopicError> {
            var store = FactStore()
            store.apply(FactUpdate(values: [.ssid: .bytes(ssid)]))
            return action.renderTopic(TemplateContext(facts: store, rule: "office", edge: .enter, time: "t"))
        }
        #expect(try topic(Array("Office 3".utf8)).get() == "office/Office 3/in")
        for hostile in ["a/b", "+", "#", "", "x\u{1b}]0;t\u{7}", "\u{85}"] {
            #expect(throws: MQTTAction.TopicError.self, "\(hostile.debugDescription)") {
                try topic(Array(hostile.utf8)).get()
            }
        }
        #expect(throws: MQTTAction.TopicError.self) { try topic([0x66, 0xFF]).get() }
        #expect(throws: MQTTAction.TopicError.self) { try topic([0x61, 0x00]).get() }
        #expect(throws: MQTTAction.TopicError.self) { try topic(Array(repeating: 0x61, count: 70_000)).get() }
    }
}
