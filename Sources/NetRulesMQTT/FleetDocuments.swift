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

        package init(
            clientID: String, name: String, version: String, prefix: String, discoveryPrefix: String,
            published: [FactKey], rules: [String], places: [String]
        ) {
            self.clientID = clientID
            self.name = name
            self.version = version
            self.prefix = prefix
            self.discoveryPrefix = discoveryPrefix
            self.published = published
            self.rules = rules
            self.places = places
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
