import NetRulesCore

/// Home Assistant's rules for a device-based discovery config (HA 2024.11+), as its MQTT
/// integration enforces them (discovery.py `TOPIC_MATCHER`, schemas.py `DEVICE_DISCOVERY_SCHEMA`,
/// the platform schemas; /work/shared/notes/mqtt-home-assistant.md §1): what a test checks a
/// payload against, since HA ships no JSON Schema.
package enum HomeAssistantDiscoveryRules {
    /// The keys each platform requires beside `p` (and `unique_id` for entities).
    static let required: [String: [[String]]] = [
        // Each inner list: one key, in its full or abbreviated spelling.
        "sensor": [["state_topic", "stat_t"]],
        "binary_sensor": [["state_topic", "stat_t"]],
        "event": [["state_topic", "stat_t"], ["event_types", "evt_typ"]],
        "switch": [["command_topic", "cmd_t"]],
    ]

    /// Every way `payload` on `topic` breaks the rules; empty when HA would accept it.
    package static func problems(topic: String, payload: JSONValue) -> [String] {
        var out: [String] = []
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if levels.count != 4 || levels[1] != "device" || levels[3] != "config" || !isID(levels[2]) {
            out.append("topic \(topic) does not match <prefix>/device/<id [a-zA-Z0-9_-]>/config")
        }
        guard case .object(let root) = payload else { return out + ["the payload is not a JSON object"] }
        func member(_ object: [(String, JSONValue)], _ names: [String]) -> JSONValue? {
            object.first { names.contains($0.0) }?.1
        }
        if root.contains(where: { $0.0 == "~" }) { out.append("a root '~' is rejected in a device config") }
        if case .object(let dev)? = member(root, ["dev", "device"]) {
            let ids = member(dev, ["ids", "identifiers"])
            let connections = member(dev, ["cns", "connections"])
            if ids == nil && connections == nil { out.append("dev needs ids or cns") }
        } else {
            out.append("dev is required")
        }
        if case .object(let origin)? = member(root, ["o", "origin"]) {
            if member(origin, ["name"])?.stringValue == nil { out.append("o.name is required") }
        } else {
            out.append("o is required")
        }
        guard case .object(let components)? = member(root, ["cmps", "components"]) else {
            return out + ["cmps is required"]
        }
        var uniqueIDs: Set<String> = []
        for (id, value) in components {
            if !isID(id) { out.append("component id \(id) is not [a-zA-Z0-9_-]") }
            guard case .object(let component) = value else {
                out.append("component \(id) is not an object")
                continue
            }
            guard let platform = member(component, ["p", "platform"])?.stringValue else {
                out.append("component \(id) has no p")
                continue
            }
            // `{"p": PLATFORM}` alone removes the component.
            if component.count == 1 { continue }
            guard let unique = member(component, ["unique_id", "uniq_id"])?.stringValue else {
                out.append("component \(id) has no unique_id")
                continue
            }
            if !uniqueIDs.insert(unique).inserted { out.append("unique_id \(unique) is used twice") }
            if member(component, ["object_id", "obj_id"]) != nil {
                out.append("component \(id) uses object_id (deprecated since 2025.10)")
            }
            if let entityID = member(component, ["default_entity_id"]) {
                let text = entityID.stringValue ?? ""
                if !text.hasPrefix("\(platform).") || !isEntityID(text) {
                    out.append("component \(id)'s default_entity_id \(text) is not a valid \(platform) entity id")
                }
            }
            for alternatives in required[platform] ?? [] where member(component, alternatives) == nil {
                out.append("\(platform) component \(id) needs \(alternatives[0])")
            }
            if platform == "event", case .array(let types)? = member(component, ["event_types", "evt_typ"]),
                types.isEmpty
            {
                out.append("event component \(id) declares no event_types")
            }
            if member(component, ["options", "ops"]) != nil {
                if member(component, ["state_class", "stat_cla"]) != nil
                    || member(component, ["unit_of_measurement", "unit_of_meas"]) != nil
                {
                    out.append("enum component \(id) combines options with state_class or a unit")
                }
                if member(component, ["device_class", "dev_cla"])?.stringValue != "enum" {
                    out.append("component \(id) has options but is not device_class enum")
                }
            }
        }
        return out
    }

    /// Whether `text` is an entity id as HA's `valid_entity_id` says (homeassistant/core.py):
    /// `domain.object_id`, each `[a-z0-9_]`, not starting or ending with `_`, and no `__`.
    static func isEntityID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && !part.hasPrefix("_") && !part.hasSuffix("_")
                && part.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F }
        } && !text.contains("__")
    }

    static func isID(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { b in
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2D
                    || b == 0x5F
            }
    }
}
