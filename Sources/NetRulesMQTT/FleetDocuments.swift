import NetRulesCore

/// The payloads netrules publishes over MQTT, as pure functions of facts, firings and rules.
///
/// Every document is `strictUTF8`: text that is not UTF-8 (an SSID is any 32 bytes) is
/// published as netrules shows it to a person, `\xNN` for each byte outside a valid sequence,
/// never as the `\udcXX` of netrules' own files, which orjson (Home Assistant's JSON loader)
/// refuses. Rules still see the exact bytes; only the payload shows them as text.
package enum FleetDocuments {
    /// `<prefix>/state`: each published fact under its key (unknown and absent facts as `null`),
    /// then `"unknown"`: the keys of the facts nobody knows yet, so a reader can tell "no SSID"
    /// (`null`, known) from "not reported yet".
    package static func state(_ published: [FactKey], facts: (FactKey) -> FactState) -> JSONValue {
        var members: [(String, JSONValue)] = []
        var unknown: [JSONValue] = []
        for key in published {
            let state = facts(key)
            members.append((key.rawValue, JSONValue(state).strictUTF8))
            if state == .unknown { unknown.append(.string(key.rawValue)) }
        }
        members.append(("unknown", .array(unknown)))
        return .object(members)
    }

    /// `<prefix>/event`: one firing, as Home Assistant's `event` entity reads it (`event_type`
    /// is the rule's name; the other keys become attributes).
    package static func event(rule: String, edge: String, time: String, actions: [String]) -> JSONValue {
        JSONValue.object([
            ("event_type", .string(rule)), ("edge", .string(edge)), ("time", .string(time)),
            ("actions", .array(actions.map(JSONValue.string))),
        ]).strictUTF8
    }

    /// What the discovery document describes the device with.
    package struct Device: Sendable, Equatable {
        package var clientID: String
        package var name: String
        package var version: String
        package var prefix: String
        package var discoveryPrefix: String
        package var published: [FactKey]
        package var rules: [String]
        package var places: [String]
        /// `mqtt: commands: true`: a `switch` per rule pauses and resumes it.
        package var commands: Bool

        package init(
            clientID: String, name: String, version: String, prefix: String, discoveryPrefix: String,
            published: [FactKey], rules: [String], places: [String], commands: Bool = false
        ) {
            self.clientID = clientID
            self.name = name
            self.version = version
            self.prefix = prefix
            self.discoveryPrefix = discoveryPrefix
            self.published = published
            self.rules = rules
            self.places = places
            self.commands = commands
        }

        /// `<discovery prefix>/device/<client id>/config`.
        package var topic: String { "\(discoveryPrefix)/device/\(clientID)/config" }
    }

    /// A discovery component id (and `unique_id`): `[a-zA-Z0-9_-]` only, as Home Assistant's
    /// topic matcher wants; other characters of a fact key (`.`) become `_`.
    package static func componentID(_ clientID: String, _ name: String) -> String {
        let safe = String(
            name.unicodeScalars.map { s -> Character in
                switch s.value {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: Character(s)
                default: "_"
                }
            })
        return "\(clientID)_\(safe)"
    }

    /// The topic level that stands for rule `name` under `<prefix>/rule/` (`…/rule/LEVEL/set`).
    ///
    /// A rule name is any text without control characters, and a topic level cannot hold `/`,
    /// `+` or `#`; Home Assistant's ids want `[a-zA-Z0-9_-]`. A name of 1 to 64 of those
    /// characters is its own level (`office-check-in`); any other gets those characters with each
    /// other one as `_`, at most 48, then `-` and 8 hex digits of the name's FNV-1a hash
    /// (`Office check in` → `Office_check_in-240fad44`), so two names that differ only in such
    /// characters still get two levels. The level is the same on every run: Home Assistant's
    /// entity and the ACL keep naming the same rule.
    package static func ruleLevel(_ name: String) -> String {
        if MQTTSettings.isValidClientID(name) { return name }
        var safe = ""
        for scalar in name.unicodeScalars.prefix(48) {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: safe.unicodeScalars.append(scalar)
            default: safe += "_"
            }
        }
        var hash: UInt32 = 0x811C_9DC5
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return safe + "-" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Each rule that can take commands, with its topic level (`ruleLevel`), in the rules' order.
    /// Two rules whose levels are the same (a name that happens to spell another's level) are
    /// both left out: a command on that level could not say which it meant.
    package static func commandRules(_ rules: [String]) -> [(rule: String, level: String)] {
        let levels = rules.map { ($0, ruleLevel($0)) }
        var count: [String: Int] = [:]
        for (_, level) in levels { count[level, default: 0] += 1 }
        return levels.filter { count[$0.1] == 1 }.map { (rule: $0.0, level: $0.1) }
    }

    /// `<prefix>/rule/<level>/set`: where `ON` resumes the rule and `OFF` pauses it.
    package static func commandTopic(prefix: String, level: String) -> String { "\(prefix)/rule/\(level)/set" }

    /// `<prefix>/rule/<level>/state`: retained, `ON` while the rule runs, `OFF` while it is paused.
    package static func ruleStateTopic(prefix: String, level: String) -> String {
        "\(prefix)/rule/\(level)/state"
    }

    /// The payload of a running rule's state (and the command that resumes it).
    package static let running = "ON"
    /// The payload of a paused rule's state (and the command that pauses it).
    package static let paused = "OFF"

    /// The entity id Home Assistant gives a component (`default_entity_id`, HA 2025.10+):
    /// `<platform>.<unique_id>` lower-cased, each run of characters an entity id cannot hold
    /// (`-`) as one `_`. Without it HA would make the id from the device's and the entity's
    /// names, which change (a renamed host, a friendlier name).
    package static func defaultEntityID(platform: String, uniqueID: String) -> String {
        var objectID = ""
        for scalar in uniqueID.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                objectID.unicodeScalars.append(scalar)
            } else if !objectID.isEmpty && !objectID.hasSuffix("_") {
                objectID += "_"
            }
        }
        while objectID.hasSuffix("_") { objectID.removeLast() }
        return "\(platform).\(objectID)"
    }

    /// The names Home Assistant shows for the facts with a component of their own.
    static let entityNames: [String: String] = [
        "ssid": "SSID", "bssid": "BSSID", "connectivity": "Connectivity", "online": "Online", "place": "Place",
        "network": "Network", "vpn": "VPN", "signal": "Signal", "rule": "Rule fired",
    ]

    /// Words of fact keys Home Assistant shows in capitals.
    static let acronyms: Set<Substring> = ["ip", "dns", "url", "mac", "uuid", "nm", "mqtt", "vpn", "ssid", "bssid"]

    /// What the namespace of `NAMESPACE.NAME` reads as before the user's NAME.
    static let namespaceNames: [Substring: String] = [
        "hosts": "Host", "interfaces": "Interface", "places": "Place", "mqtt": "MQTT",
    ]

    /// The entity's name in Home Assistant for a published fact key or a component (`rule`).
    ///
    /// The components netrules describes itself have names of their own (`SSID`, `Rule fired`).
    /// Another built-in key reads as its words, the first capitalised and acronyms in capitals
    /// (`gateway.mac` → `Gateway MAC`, `signal.quality` → `Signal quality`). A key with a name
    /// the rules chose (`hosts.intranet`, `interfaces.wg0`, `places.office`, `mqtt.door`) reads
    /// as the namespace in the singular and the name as written: `Host intranet`.
    package static func entityName(_ key: String) -> String {
        if let name = entityNames[key] { return name }
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count >= 2, let namespace = namespaceNames[parts[0]] {
            return ([namespace] + parts.dropFirst().map(String.init)).joined(separator: " ")
        }
        let words = key.split(whereSeparator: { $0 == "." || $0 == "_" })
        return words.enumerated().map { index, word in
            if acronyms.contains(word) { return word.uppercased() }
            return index == 0 ? word.prefix(1).uppercased() + word.dropFirst() : String(word)
        }.joined(separator: " ")
    }

    /// The components of `device`, by id, in order.
    package static func components(_ device: Device) -> [(String, JSONValue)] {
        let stateTopic = "\(device.prefix)/state"
        func component(_ name: String, platform: String, _ extra: [(String, JSONValue)]) -> (String, JSONValue) {
            let id = componentID(device.clientID, name)
            return (
                id,
                .object(
                    [
                        ("p", .string(platform)), ("unique_id", .string(id)), ("name", .string(entityName(name))),
                        ("default_entity_id", .string(defaultEntityID(platform: platform, uniqueID: id))),
                    ] + extra)
            )
        }
        func value(_ key: FactKey) -> String { "{{ value_json['\(key.rawValue)'] }}" }
        var out: [(String, JSONValue)] = []
        for key in device.published {
            switch key.rawValue {
            case "connectivity":
                out.append(
                    component(
                        "connectivity", platform: "sensor",
                        [
                            ("stat_t", .string(stateTopic)), ("val_tpl", .string(value(key))),
                            ("dev_cla", .string("enum")),
                            ("options", .array(["online", "portal", "offline"].map(JSONValue.string))),
                        ]))
                out.append(
                    component(
                        "online", platform: "binary_sensor",
                        [
                            ("stat_t", .string(stateTopic)), ("dev_cla", .string("connectivity")),
                            (
                                "val_tpl",
                                .string(
                                    "{% if value_json['connectivity'] is none %}None{% elif "
                                        + "value_json['connectivity'] == 'online' %}ON{% else %}OFF{% endif %}")
                            ),
                        ]))
            case "place":
                // `None` is unknown to HA: only while the fact is unknown (listed in "unknown");
                // known absent (null) is "no place is here".
                let none = PlaceDefinition.noPlace
                out.append(
                    component(
                        "place", platform: "sensor",
                        [
                            ("stat_t", .string(stateTopic)),
                            (
                                "val_tpl",
                                .string(
                                    "{% if 'place' in value_json['unknown'] %}None{% elif value_json['place'] is none %}"
                                        + "\(none){% else %}{{ value_json['place'] }}{% endif %}")
                            ),
                            ("dev_cla", .string("enum")),
                            ("options", .array((device.places + [none]).map(JSONValue.string))),
                        ]))
            case "network":
                out.append(
                    component(
                        "network", platform: "sensor",
                        [
                            ("stat_t", .string(stateTopic)), ("val_tpl", .string(value(key))),
                            ("dev_cla", .string("enum")),
                            ("options", .array(["wifi", "wired", "none"].map(JSONValue.string))),
                        ]))
            case "vpn":
                out.append(
                    component(
                        "vpn", platform: "binary_sensor",
                        [
                            ("stat_t", .string(stateTopic)),
                            (
                                "val_tpl",
                                .string(
                                    "{% if value_json['vpn'] is none %}None{% elif value_json['vpn'] %}ON"
                                        + "{% else %}OFF{% endif %}")
                            ),
                        ]))
            case "signal":
                out.append(
                    component(
                        "signal", platform: "sensor",
                        [
                            ("stat_t", .string(stateTopic)), ("val_tpl", .string(value(key))),
                            ("dev_cla", .string("signal_strength")), ("unit_of_meas", .string("dBm")),
                            ("stat_cla", .string("measurement")), ("ent_cat", .string("diagnostic")),
                        ]))
            default:
                out.append(
                    component(
                        key.rawValue, platform: "sensor",
                        [("stat_t", .string(stateTopic)), ("val_tpl", .string(value(key)))]))
            }
        }
        out.append(
            component(
                "rule", platform: "event",
                [
                    ("stat_t", .string("\(device.prefix)/event")),
                    ("event_types", .array(device.rules.map(JSONValue.string))),
                ]))
        guard device.commands else { return out }
        // One switch per rule: `Rule office-check-in`, on while it runs. Its id is `rule_switch_`
        // and the level, which no fact key's component id can be (none has a `rule` namespace).
        for (rule, level) in commandRules(device.rules) {
            let id = componentID(device.clientID, "rule_switch_" + level)
            out.append(
                (
                    id,
                    .object([
                        ("p", .string("switch")), ("unique_id", .string(id)), ("name", .string("Rule \(rule)")),
                        ("default_entity_id", .string(defaultEntityID(platform: "switch", uniqueID: id))),
                        ("cmd_t", .string(commandTopic(prefix: device.prefix, level: level))),
                        ("stat_t", .string(ruleStateTopic(prefix: device.prefix, level: level))),
                        ("pl_on", .string(running)), ("pl_off", .string(paused)), ("ent_cat", .string("config")),
                        ("icon", .string("mdi:play-pause")),
                    ])
                ))
        }
        return out
    }

    /// The device-based discovery config (Home Assistant 2024.11+): `dev`, `o`, the shared
    /// availability topic and `cmps`; each id of `removed` (a component an earlier config had)
    /// is listed as `{"p": PLATFORM}` alone, which removes it.
    package static func discovery(_ device: Device, removed: [(id: String, platform: String)] = []) -> JSONValue {
        var components = components(device)
        for (id, platform) in removed where !components.contains(where: { $0.0 == id }) {
            components.append((id, .object([("p", .string(platform))])))
        }
        return .object([
            (
                "dev",
                .object([
                    ("ids", .array([.string(device.clientID)])), ("name", .string(device.name)),
                    ("sw", .string(device.version)), ("mf", .string("netrules")),
                ])
            ),
            (
                "o",
                .object([("name", .string("netrules")), ("sw", .string(device.version))])
            ),
            ("avty_t", .string("\(device.prefix)/availability")),
            ("cmps", .object(components)),
        ]).strictUTF8
    }

    /// The components of an earlier `device` that `next` no longer has, with their platforms.
    package static func removedComponents(from previous: Device, to next: Device) -> [(id: String, platform: String)] {
        let kept = Set(components(next).map(\.0))
        return components(previous).compactMap { id, value in
            guard !kept.contains(id), case .object(let members) = value,
                case .string(let platform)? = members.first(where: { $0.0 == "p" })?.1
            else { return nil }
            return (id, platform)
        }
    }
}
