import NetRulesConfig
import NetRulesCore
import Testing

/// Rules reading `mqtt.NAME`: only a NAME `subscribe:` declares, in `when:`, `fact:` and templates.
@Suite(.timeLimit(.minutes(1)))
struct SubscribedFactConfigTests {
    static let mqtt = """
        version: 1
        mqtt:
          broker: mqtt://127.0.0.1
          subscribe: { door: office/door/state, temp: "sensors/+/temp" }

        """

    static func load(_ rules: String, mqtt: String = SubscribedFactConfigTests.mqtt) -> LoadResult {
        RuleLoader().load([RuleSource(file: "f.yaml", bytes: Array((mqtt + rules).utf8))])
    }

    @Test func aDeclaredFactIsAConditionKey() throws {
        let result = Self.load(
            """
            rules:
              - name: door open
                when: { mqtt.door: open }
                do: [{ run: "echo {{mqtt.door}}" }]
              - name: warm
                when: { fact: { key: mqtt.temp, above: 25 } }
                do: [{ run: "echo {{fact.mqtt.temp}}" }]
              - name: door moving
                when: { mqtt.door: [opening, closing] }
                do: [{ run: "true" }]
            """)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        let rules = result.ruleSet.rules
        #expect(rules.count == 3)
        var facts = FactStore()
        #expect(rules[0].condition.evaluate(facts) == .unknown)
        facts.apply(FactUpdate(["mqtt.door": .value(.string("open"))]))
        #expect(rules[0].condition.evaluate(facts) == .true)
        facts.apply(FactUpdate(["mqtt.door": .value(.string("closing")), "mqtt.temp": .value(.number(26))]))
        #expect(rules[0].condition.evaluate(facts) == .false)
        #expect(rules[1].condition.evaluate(facts) == .true)
        #expect(rules[2].condition.evaluate(facts) == .true)
    }

    @Test func anUndeclaredFactIsAnErrorWithTheClosestName() {
        let result = Self.load(
            """
            rules:
              - name: a
                when: { mqtt.dor: open }
                do: [{ run: "true" }]
              - name: b
                when: { fact: { key: mqtt.window, equals: open } }
                do: [{ run: "true" }]
              - name: c
                when: { ssid: Office }
                do: [{ run: "echo {{mqtt.tmp}}" }]
            """)
        let text = result.renderedDiagnostics()
        #expect(text.contains("f.yaml:7:13: error: 'mqtt.dor' is not a fact 'mqtt: subscribe:' declares"), "\(text)")
        #expect(text.contains("did you mean 'mqtt.door'?"), "\(text)")
        #expect(
            text.contains("f.yaml:10:26: error: 'mqtt.window' is not a fact 'mqtt: subscribe:' declares"), "\(text)")
        #expect(text.contains("subscribed: mqtt.door, mqtt.temp"), "\(text)")
        #expect(text.contains("f.yaml:14:23: error: 'mqtt.tmp' is not a fact 'mqtt: subscribe:' declares"), "\(text)")
        #expect(text.contains("did you mean 'mqtt.temp'?"), "\(text)")
        #expect(result.ruleSet.rules.isEmpty)
    }

    @Test func aPlaceMayReadADeclaredFactOnly() {
        let result = Self.load(
            """
            places:
              office: { when: { mqtt.door: open } }
              lab: { when: { mqtt.lab: open } }
            rules: []
            """)
        let text = result.renderedDiagnostics()
        #expect(text.contains("f.yaml:7:18: error: 'mqtt.lab' is not a fact 'mqtt: subscribe:' declares"), "\(text)")
        #expect(result.ruleSet.places.map(\.name) == ["office"], "\(text)")
    }

    @Test func withoutSubscribeTheHintSaysHowToDeclareIt() {
        let result = Self.load(
            """
            rules:
              - name: a
                when: { mqtt.door: open }
                do: [{ run: "true" }]
            """, mqtt: "version: 1\n")
        let text = result.renderedDiagnostics()
        #expect(text.contains("f.yaml:4:13: error: 'mqtt.door' is not a fact 'mqtt: subscribe:' declares"), "\(text)")
        #expect(text.contains("declare it under 'mqtt:' as 'subscribe: { door: TOPIC }'"), "\(text)")
    }

    @Test func aBrokenMQTTSectionStillDeclaresItsNames() {
        let result = Self.load(
            """
            rules:
              - name: a
                when: { mqtt.door: open }
                do: [{ run: "true" }]
            """,
            mqtt: """
                version: 1
                mqtt:
                  broker: ftp://nowhere
                  subscribe: { door: office/door/state }

                """)
        #expect(result.hasErrors)
        #expect(!result.renderedDiagnostics().contains("mqtt.door"), "\(result.renderedDiagnostics())")
        #expect(result.ruleSet.rules.count == 1)
    }
}
