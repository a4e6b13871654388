import NetRulesCore
import NetRulesMQTT
import NetRulesTesting
import Testing

/// The discovery config, state and event payloads, checked against Home Assistant's
/// device-discovery rules (HomeAssistantDiscoveryRules).
@Suite(.timeLimit(.minutes(1)))
struct DiscoveryDocumentTests {
    static let device = FleetDocuments.Device(
        clientID: "netrules-0123456789abcdef", name: "Anna's laptop", version: "0.1.0",
        prefix: "netrules/netrules-0123456789abcdef", discoveryPrefix: "homeassistant",
        published: MQTTSettings.defaultPublished + ["hosts.nas"], rules: ["office", "home"],
        places: ["office", "home"])

    @Test func theDefaultConfigFollowsHomeAssistantsRules() throws {
        let payload = FleetDocuments.discovery(Self.device)
        #expect(Self.device.topic == "homeassistant/device/netrules-0123456789abcdef/config")
        #expect(HomeAssistantDiscoveryRules.problems(topic: Self.device.topic, payload: payload) == [])
        let components = FleetDocuments.components(Self.device).map(\.0)
        #expect(
            components
                == [
                    "ssid", "connectivity", "online", "place", "vpn", "network", "signal", "hosts_nas", "rule",
                ].map { "netrules-0123456789abcdef_\($0)" })
        // The event entity lists the rules; enum sensors list their values.
        let compact = payload.compact
        #expect(compact.contains(#""p":"event","unique_id":"netrules-0123456789abcdef_rule""#))
        #expect(compact.contains(#""event_types":["office","home"]"#))
        #expect(compact.contains(#""dev_cla":"enum","options":["online","portal","offline"]"#))
        #expect(compact.contains(#""avty_t":"netrules/netrules-0123456789abcdef/availability""#))
        #expect(compact.contains(#""o":{"name":"netrules","sw":"0.1.0","url":"https://netrules.dev"}"#))
    }

    @Test func aComponentDroppedByAReloadIsRemovedByName() {
        var next = Self.device
        next.published = ["ssid"]
        let removed = FleetDocuments.removedComponents(from: Self.device, to: next)
        #expect(removed.map(\.id).contains("netrules-0123456789abcdef_signal"))
        #expect(!removed.map(\.id).contains("netrules-0123456789abcdef_ssid"))
        let payload = FleetDocuments.discovery(next, removed: removed)
        #expect(payload.compact.contains(#""netrules-0123456789abcdef_signal":{"p":"sensor"}"#))
        #expect(HomeAssistantDiscoveryRules.problems(topic: next.topic, payload: payload) == [])
    }

    @Test func theCheckerCatchesWhatHomeAssistantRefuses() {
        let bad = JSONValue.object([
            ("~", .string("x")), ("dev", .object([("name", .string("n"))])),
            ("cmps", .object([("a.b", .object([("p", .string("event")), ("unique_id", .string("u"))]))])),
        ])
        #expect(
            HomeAssistantDiscoveryRules.problems(topic: "homeassistant/device/a.b/config", payload: bad) == [
                "topic homeassistant/device/a.b/config does not match <prefix>/device/<id [a-zA-Z0-9_-]>/config",
                "a root '~' is rejected in a device config", "dev needs ids or cns", "o is required",
                "component id a.b is not [a-zA-Z0-9_-]", "event component a.b needs state_topic",
                "event component a.b needs event_types",
            ])
    }

    @Test func theStateListsUnknownFactsAndTheEventNamesTheRule() {
        let state = FleetDocuments.state(["ssid", "connectivity", "vpn"]) { key in
            key == "ssid" ? .value(.string("Home")) : key == "vpn" ? .absent : .unknown
        }
        #expect(state.compact == #"{"ssid":"Home","connectivity":null,"vpn":null,"unknown":["connectivity"]}"#)
        let event = FleetDocuments.event(
            rule: "office", edge: "enter", time: "2026-12-02T05:00:00Z", actions: ["webhook", "write"])
        #expect(
            event.compact
                == #"{"event_type":"office","edge":"enter","time":"2026-12-02T05:00:00Z","actions":["webhook","write"]}"#
        )
    }
}
