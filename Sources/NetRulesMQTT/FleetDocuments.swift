import NetRulesCore

/// The payloads netrules publishes over MQTT, as pure functions of facts, firings and rules.
package enum FleetDocuments {
    /// `<prefix>/state`: each published fact under its key (unknown and absent facts as `null`),
    /// then `"unknown"`: the keys of the facts nobody knows yet, so a reader can tell "no SSID"
    /// (`null`, known) from "not reported yet".
    package static func state(_ published: [FactKey], facts: (FactKey) -> FactState) -> JSONValue {
        var members: [(String, JSONValue)] = []
        var unknown: [JSONValue] = []
        for key in published {
            let state = facts(key)
            members.append((key.rawValue, JSONValue(state)))
            if state == .unknown { unknown.append(.string(key.rawValue)) }
        }
        members.append(("unknown", .array(unknown)))
        return .object(members)
    }

    /// `<prefix>/event`: one firing, as Home Assistant's `event` entity reads it (`event_type`
    /// is the rule's name; the other keys become attributes).
    package static func event(rule: String, edge: String, time: String, actions: [String]) -> JSONValue {
        .object([
            ("event_type", .string(rule)), ("edge", .string(edge)), ("time", .string(time)),
            ("actions", .array(actions.map(JSONValue.string))),
        ])
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

    /// The components of `device`, by id, in order.
    package static func components(_ device: Device) -> [(String, JSONValue)] {
        let stateTopic = "\(device.prefix)/state"
        func component(_ name: String, platform: String, _ extra: [(String, JSONValue)]) -> (String, JSONValue) {
            let id = componentID(device.clientID, name)
            return (
                id,
                .object(
                    [("p", .string(platform)), ("unique_id", .string(id)), ("name", .string(name))] + extra)
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
                out.append(
                    component(
                        "place", platform: "sensor",
                        [
                            ("stat_t", .string(stateTopic)), ("val_tpl", .string(value(key))),
                            ("dev_cla", .string("enum")), ("options", .array(device.places.map(JSONValue.string))),
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
                .object([
                    ("name", .string("netrules")), ("sw", .string(device.version)),
                    ("url", .string("https://netrules.dev")),
                ])
            ),
            ("avty_t", .string("\(device.prefix)/availability")),
            ("cmps", .object(components)),
        ])
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
