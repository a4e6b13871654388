import NetRulesCore
import NetRulesMQTT
import NetRulesSystem
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
        // No origin url: the project has no web site of its own.
        #expect(compact.contains(#""o":{"name":"netrules","sw":"0.1.0"},"#))
    }

    /// Names as HA users expect them, with entity ids made from the unique ids, which never change.
    @Test func entitiesHaveFriendlyNamesAndStableEntityIDs() throws {
        let components = FleetDocuments.components(Self.device)
        func member(_ id: String, _ key: String) -> String? {
            guard case .object(let members)? = components.first(where: { $0.0 == "netrules-0123456789abcdef_\(id)" })?.1
            else { return nil }
            return members.first { $0.0 == key }?.1.stringValue
        }
        let names = ["ssid", "connectivity", "online", "place", "vpn", "network", "signal", "hosts_nas", "rule"].map {
            member($0, "name")
        }
        #expect(
            names == ["SSID", "Connectivity", "Online", "Place", "VPN", "Network", "Signal", "Host nas", "Rule fired"])
        #expect(member("ssid", "default_entity_id") == "sensor.netrules_0123456789abcdef_ssid")
        #expect(member("online", "default_entity_id") == "binary_sensor.netrules_0123456789abcdef_online")
        #expect(member("hosts_nas", "default_entity_id") == "sensor.netrules_0123456789abcdef_hosts_nas")
        #expect(member("rule", "default_entity_id") == "event.netrules_0123456789abcdef_rule")
        #expect(member("ssid", "unique_id") == "netrules-0123456789abcdef_ssid")
    }

    @Test(arguments: [
        ("gateway", "Gateway"), ("gateway.mac", "Gateway MAC"), ("signal.quality", "Signal quality"),
        ("portal.url", "Portal URL"), ("nm.connectivity", "NM connectivity"), ("ip", "IP"), ("dns", "DNS"),
        ("hosts.intranet", "Host intranet"), ("interfaces.wg0", "Interface wg0"), ("places.office", "Place office"),
        ("mqtt.door", "MQTT door"), ("bssid", "BSSID"), ("connection.uuid", "Connection UUID"),
    ])
    func otherFactsAreNamedFromTheirKeys(key: String, name: String) {
        #expect(FleetDocuments.entityName(key) == name)
    }

    /// `away` when the daemon knows no place is here, `None` (HA's unknown) only while it does not know.
    @Test func thePlaceSensorSaysAwayWhenNoPlaceIsHere() async throws {
        let compact = FleetDocuments.discovery(Self.device).compact
        #expect(compact.contains(#""dev_cla":"enum","options":["office","home","away"]"#))
        let template = try #require(
            FleetDocuments.components(Self.device).first { $0.0 == "netrules-0123456789abcdef_place" }.flatMap {
                if case .object(let members) = $0.1 { members.first { $0.0 == "val_tpl" }?.1.stringValue } else { nil }
            })
        #expect(
            template
                == "{% if 'place' in value_json['unknown'] %}None{% elif value_json['place'] is none %}away"
                + "{% else %}{{ value_json['place'] }}{% endif %}")
        let states: [FactState] = [.unknown, .absent, .value(.string("office"))]
        let documents = states.map { state in FleetDocuments.state(["place"]) { _ in state }.compact }
        #expect(
            documents == [
                #"{"place":null,"unknown":["place"]}"#, #"{"place":null,"unknown":[]}"#,
                #"{"place":"office","unknown":[]}"#,
            ])
        // Rendered by Jinja2, as Home Assistant renders it: Debian's python3-jinja2 (scripts/setup
        // installs it); without it python3 fails on the import, and so does the test.
        let script = """
            import json, sys
            import jinja2
            template = jinja2.Environment().from_string(sys.argv[1])
            for line in sys.stdin.read().splitlines():
                print(template.render(value_json=json.loads(line)))
            """
        let output = try await Self.python(script, [template], input: documents.joined(separator: "\n"))
        #expect(output == "None\naway\noffice\n")
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

    /// An SSID of bytes FF FE (not UTF-8): strict UTF-8 JSON that Python reads in strict mode,
    /// the bytes shown as the text `\xff\xfe`, never the `\udcXX` orjson refuses.
    @Test func aStateWithBytesThatAreNotUTF8IsStrictJSON() async throws {
        let state = FleetDocuments.state(["ssid", "place"]) { key in
            key == "ssid" ? .value(.text([0xFF, 0xFE])) : .absent
        }
        let payload = state.compactBytes
        #expect(String(validating: payload, as: UTF8.self) != nil)
        #expect(!state.compact.contains(#"\ud"#))
        #expect(state.compact == #"{"ssid":"\\xff\\xfe","place":null,"unknown":[]}"#)
        let parsed = try JSONValue.parse(payload)
        guard case .object(let members) = parsed else { throw TestError("the state is not an object") }
        #expect(members.first?.1 == .string(#"\xff\xfe"#))
        // Python's json, strictly: the bytes decoded as UTF-8 (an error for anything else) and the
        // text encoded back, which fails on a lone surrogate as orjson does. orjson itself is not
        // in Debian 12; this is its contract.
        let script = """
            import json, sys
            payload = sys.stdin.buffer.read()
            document = json.loads(payload.decode("utf-8", errors="strict"))
            document["ssid"].encode("utf-8")
            json.loads(payload)
            print(json.dumps(document["ssid"]))
            """
        #expect(try await Self.python(script, input: state.compact) == #""\\xff\\xfe""# + "\n")
    }

    /// Runs `script` with Debian's /usr/bin/python3 (not whichever is first on PATH: a pyenv one
    /// lacks Debian's python3-jinja2) and returns its standard output; fails the test when python3
    /// exits with anything but 0, an import that fails included.
    static func python(_ script: String, _ arguments: [String] = [], input: String) async throws -> String {
        let child = ChildProcess(
            executablePath: "/usr/bin/python3",
            arguments: (["python3", "-c", script] + arguments).map { Array($0.utf8) },
            environment: ChildProcess.inheritedEnvironment, standardInput: Array(input.utf8), timeout: .seconds(30))
        let outcome = try await child.run(on: .testLoop)
        let errors = String(decoding: outcome.standardError.bytes, as: UTF8.self)
        #expect(
            outcome.succeeded,
            "/usr/bin/python3: \(outcome.termination): \(errors) (scripts/setup installs python3-jinja2)")
        return String(decoding: outcome.standardOutput.bytes, as: UTF8.self)
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
