import NetRulesConfig
import NetRulesCore
import Testing

/// The `mqtt:` section: its keys, their defaults, and a positioned diagnostic for each bad value.
@Suite(.timeLimit(.minutes(1)))
struct MQTTSettingsTests {
    static func load(_ files: [String], environment: [String: String]? = nil) -> LoadResult {
        var loader = RuleLoader()
        loader.environment = environment
        return loader.load(
            files.enumerated().map { RuleSource(file: "f\($0.offset).yaml", bytes: Array($0.element.utf8)) })
    }

    static func load(_ mqtt: String, environment: [String: String]? = nil) -> LoadResult {
        load(["version: 1\nmqtt:\n" + mqtt + "\nrules: []\n"], environment: environment)
    }

    /// The first line of each diagnostic (`file:line:column: severity: message`).
    static func headlines(_ result: LoadResult) -> [String] {
        result.renderedDiagnostics().split(separator: "\n").filter {
            $0.hasPrefix("f0.yaml:") || $0.hasPrefix("f1.yaml:")
        }
        .map(String.init)
    }

    @Test func aMinimalSectionGetsTheDocumentedDefaults() throws {
        let result = Self.load("  broker: mqtt://127.0.0.1")
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        let mqtt = try #require(result.ruleSet.mqtt)
        #expect(mqtt.broker == .tcp(host: "127.0.0.1", port: 1883, tls: false))
        #expect(mqtt.keepalive == .seconds(60))
        #expect(mqtt.published == ["ssid", "connectivity", "place", "vpn", "network", "signal"])
        #expect(mqtt.discovery == MQTTSettings.Discovery(prefix: "homeassistant", name: nil))
        #expect(mqtt.clientID == nil)
        #expect(mqtt.prefix(clientID: "netrules-ab12") == "netrules/netrules-ab12")
        // Publishing connectivity and signal asks the probes for them, though no rule reads them.
        #expect(result.ruleSet.demand.needsConnectivity)
        #expect(result.ruleSet.demand.needsSignal)
        #expect(RuleSet().mqtt == nil)
    }

    @Test func everyKeyIsRead() throws {
        let result = Self.load(
            """
              broker: mqtts://broker.lan:8884
              client_id: laptop-7
              username: laptop-7
              password: "{{env.MQTT_PASSWORD}}"
              ca_file: /etc/netrules/ca.pem
              cert_file: /etc/netrules/client.pem
              key_file: /etc/netrules/client.key
              keepalive: 2m
              topic_prefix: fleet/laptop-7
              publish: [ssid, connectivity, hosts.nas]
              discovery: { prefix: ha, name: Anna's laptop }
              subscribe: { office_open: office/door/state, any: "fleet/+/status" }
            """, environment: ["MQTT_PASSWORD": "s3cret-value"])
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        let mqtt = try #require(result.ruleSet.mqtt)
        #expect(mqtt.broker == .tcp(host: "broker.lan", port: 8884, tls: true))
        #expect(mqtt.broker.description == "mqtts://broker.lan:8884")
        #expect(mqtt.clientID == "laptop-7")
        #expect(mqtt.username == "laptop-7")
        #expect(mqtt.passwordVariable == "MQTT_PASSWORD")
        #expect(mqtt.caFile == "/etc/netrules/ca.pem")
        #expect(mqtt.certFile == "/etc/netrules/client.pem")
        #expect(mqtt.keyFile == "/etc/netrules/client.key")
        #expect(mqtt.keepalive == .seconds(120))
        #expect(mqtt.topicPrefix == "fleet/laptop-7")
        #expect(mqtt.published == ["ssid", "connectivity", "hosts.nas"])
        #expect(mqtt.discovery == MQTTSettings.Discovery(prefix: "ha", name: "Anna's laptop"))
        #expect(
            mqtt.subscriptions == [
                .init(name: "office_open", topic: "office/door/state"), .init(name: "any", topic: "fleet/+/status"),
            ])
        // The secret's value appears in no diagnostic and nowhere in the settings.
        #expect(!result.renderedDiagnostics().contains("s3cret"))
        #expect(!"\(mqtt)".contains("s3cret"))
    }

    @Test func unixSocketsAndDiscoveryOff() throws {
        let result = Self.load("  broker: unix:/run/mosquitto/mqtt.sock\n  discovery: false")
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        let mqtt = try #require(result.ruleSet.mqtt)
        #expect(mqtt.broker == .unix(path: "/run/mosquitto/mqtt.sock"))
        #expect(mqtt.discovery == nil)
    }

    @Test(arguments: [
        ("  broker: http://broker:1883", "f0.yaml:3:11: error: unsupported broker scheme 'http'"),
        ("  broker: mqtt://broker:99999", "f0.yaml:3:11: error: the broker's port must be a number from 1 to 65535"),
        ("  broker: mqtt://user:pw@broker", "f0.yaml:3:11: error: a broker URL is only a scheme, a host and a port"),
        ("  broker: unix:relative.sock", "f0.yaml:3:11: error: a unix broker needs an absolute socket path"),
        (
            "  broker: mqtt://b\n  keepalive: 10s",
            "f0.yaml:4:14: error: the keepalive must be whole seconds from 15s to 300s"
        ),
        (
            "  broker: mqtt://b\n  keepalive: 301s",
            "f0.yaml:4:14: error: the keepalive must be whole seconds from 15s to 300s"
        ),
        (
            "  broker: mqtt://b\n  password: hunter22",
            "f0.yaml:4:13: error: the password must be a secret from the environment, written \"{{env.NAME}}\""
        ),
        (
            "  broker: mqtt://b\n  password: \"x{{env.P}}\"",
            "f0.yaml:4:13: error: the password must be a secret from the environment, written \"{{env.NAME}}\""
        ),
        ("  broker: mqtt://b\n  ca_file: /etc/ca.pem", "f0.yaml:4:3: error: 'ca_file' needs a TLS broker (mqtts://)"),
        (
            "  broker: mqtt://b\n  client_id: a/b",
            "f0.yaml:4:14: error: a client id is 1 to 64 of the characters a-z, A-Z, 0-9, '_' and '-'"
        ),
        ("  broker: mqtt://b\n  publish: [ssdi]", "f0.yaml:4:13: error: 'ssdi' is not a fact netrules knows"),
        (
            "  broker: mqtt://b\n  topic_prefix: a//b",
            "f0.yaml:4:17: error: the topic prefix is not a topic: a topic cannot have an empty level ('//', or '/' at either end)"
        ),
        ("  broker: mqtt://b\n  subscribe: { x: \"a/#/b\" }", "f0.yaml:4:19: error: 'a/#/b' is not a topic filter"),
        ("  broker: mqtt://b\n  keep_alive: 60s", "f0.yaml:4:3: error: unknown key 'keep_alive' in mqtt"),
        ("  keepalive: 60s", "f0.yaml:3:3: error: 'mqtt' needs 'broker'"),
    ])
    func badValuesArePointedAt(section: String, headline: String) {
        let result = Self.load(section)
        #expect(result.hasErrors)
        #expect(result.ruleSet.mqtt == nil)
        #expect(Self.headlines(result).first == headline, "\(result.renderedDiagnostics())")
    }

    @Test func insecureIsWarnedAbout() throws {
        let result = Self.load("  broker: mqtts://b\n  insecure: true")
        #expect(!result.hasErrors)
        #expect(
            Self.headlines(result) == [
                "f0.yaml:4:13: warning: 'insecure: true' accepts a broker certificate that does not match its host name"
            ])
        #expect(try #require(result.ruleSet.mqtt).insecure)
    }

    @Test func anUnsetPasswordVariableIsWarnedAboutWhereItIsRead() {
        let result = Self.load("  broker: mqtt://b\n  password: \"{{env.MQTT_PW}}\"", environment: [:])
        #expect(!result.hasErrors)
        #expect(
            Self.headlines(result).first?.hasPrefix("f0.yaml:4:13: warning: MQTT_PW is not set") == true,
            "\(result.renderedDiagnostics())")
    }

    /// `commands: true` lets Home Assistant pause rules; off unless written, and only a Boolean.
    @Test func commandsAreOffUnlessAskedFor() throws {
        #expect(try #require(Self.load("  broker: mqtt://b").ruleSet.mqtt).commands == false)
        #expect(try #require(Self.load("  broker: mqtt://b\n  commands: true").ruleSet.mqtt).commands)
        let wrong = Self.load("  broker: mqtt://b\n  commands: please")
        #expect(wrong.ruleSet.mqtt == nil)
        #expect(
            Self.headlines(wrong).first?.hasPrefix("f0.yaml:4:13: error:") == true, "\(wrong.renderedDiagnostics())")
    }

    @Test func theSectionIsSetInOneFileOnly() {
        let result = Self.load([
            "version: 1\nmqtt: { broker: mqtt://a }\n", "version: 1\nmqtt: { broker: mqtt://b }\n",
        ])
        #expect(
            Self.headlines(result) == ["f1.yaml:2:1: error: 'mqtt' is set in more than one file (first at f0.yaml:2:1)"]
        )
    }

    @Test(
        arguments: [
            ("a/b", nil), ("a/+/b", "a topic to publish on cannot hold '+' or '#'"),
            ("#", "a topic to publish on cannot hold '+' or '#'"),
            ("/a", "a topic cannot have an empty level ('//', or '/' at either end)"), ("", "a topic cannot be empty"),
        ] as [(String, String?)])
    func publishTopics(topic: String, problem: String?) {
        #expect(MQTTSettings.publishTopicProblem(topic) == problem)
    }

    /// A `subscribe:` filter that would hear the daemon's own topics is refused at the filter; a
    /// level the daemon knows only when it runs (the derived client id) matches anything.
    @Test(arguments: [
        (
            "  subscribe: { me: \"netrules/+/state\" }",
            "f0.yaml:4:20: error: subscribe: 'me': the filter 'netrules/+/state' matches the topic "
                + "netrules/<client id>/state that this daemon publishes: it would hear its own messages"
        ),
        (
            "  subscribe: { door: office/door, all: \"#\" }",
            "f0.yaml:4:40: error: subscribe: 'all': the filter '#' matches the topic "
                + "netrules/<client id>/state that this daemon publishes: it would hear its own messages"
        ),
        (
            "  client_id: laptop-7\n  subscribe:\n    mine: netrules/laptop-7/availability",
            "f0.yaml:6:11: error: subscribe: 'mine': the filter 'netrules/laptop-7/availability' matches the topic "
                + "netrules/laptop-7/availability that this daemon publishes: it would hear its own messages"
        ),
        (
            "  topic_prefix: fleet/me\n  subscribe: { ev: fleet/+/event }",
            "f0.yaml:5:20: error: subscribe: 'ev': the filter 'fleet/+/event' matches the topic "
                + "fleet/me/event that this daemon publishes: it would hear its own messages"
        ),
        (
            "  subscribe: { cmd: \"netrules/+/rule/#\" }",
            "f0.yaml:4:21: error: subscribe: 'cmd': the filter 'netrules/+/rule/#' matches the topic "
                + "netrules/<client id>/rule/<rule>/set that this daemon keeps for commands to its rules: "
                + "a message there is a command, not a fact"
        ),
        (
            "  subscribe: { ha: \"homeassistant/device/+/config\" }",
            "f0.yaml:4:20: error: subscribe: 'ha': the filter 'homeassistant/device/+/config' matches the topic "
                + "homeassistant/device/<client id>/config that this daemon publishes: it would hear its own messages"
        ),
    ])
    func aFilterHearingTheDaemonsOwnTopicsIsRefusedAtItsPosition(section: String, headline: String) {
        let result = Self.load("  broker: mqtt://127.0.0.1\n" + section)
        #expect(result.ruleSet.mqtt == nil)
        #expect(Self.headlines(result) == [headline], "\(result.renderedDiagnostics())")
    }

    /// Other machines' topics, and Home Assistant's own, are not the daemon's.
    @Test(arguments: [
        "  client_id: laptop-7\n  subscribe: { peer: netrules/laptop-2/state }",
        "  topic_prefix: fleet/me\n  subscribe: { peers: \"netrules/+/state\", ha: homeassistant/status }",
        "  discovery: false\n  subscribe: { ha: \"homeassistant/#\" }",
        "  subscribe: { rules: \"netrules/+/rules/#\", deep: \"netrules/+/state/x\" }",
    ])
    func filtersOfOtherTopicsAreKept(section: String) {
        let result = Self.load("  broker: mqtt://127.0.0.1\n" + section)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        #expect(result.ruleSet.mqtt?.subscriptions.isEmpty == false)
    }

    /// `publish:` may name `mqtt.NAME` only for a NAME `subscribe:` declares.
    @Test func publishingAnUndeclaredSubscribedFactIsAnError() {
        let declared = Self.load(
            "  broker: mqtt://127.0.0.1\n  subscribe: { door: office/door }\n  publish: [ssid, mqtt.door]")
        #expect(!declared.hasErrors, "\(declared.renderedDiagnostics())")
        #expect(declared.ruleSet.mqtt?.published == ["ssid", "mqtt.door"])
        let misspelt = Self.load(
            "  broker: mqtt://127.0.0.1\n  subscribe: { door: office/door }\n  publish: [mqtt.dor]")
        #expect(
            Self.headlines(misspelt) == [
                "f0.yaml:5:13: error: 'mqtt.dor' is not a fact of this section: 'subscribe:' declares no 'dor'"
            ])
        #expect(misspelt.renderedDiagnostics().contains("did you mean 'mqtt.door'?"))
    }
}
