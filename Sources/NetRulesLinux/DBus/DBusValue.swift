/// A D-Bus value read from a message, whatever its signature.
///
/// Only what a client reading NetworkManager's properties needs: basic types, arrays,
/// dictionaries (as pairs), structs and variants. Strings are kept as received; byte arrays
/// (`ay`, NetworkManager's SSIDs) as bytes, because an SSID need not be UTF-8.
package indirect enum DBusValue: Hashable, Sendable {
    case string(String)
    case objectPath(String)
    case signature(String)
    case bool(Bool)
    case byte(UInt8)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case bytes([UInt8])
    case array([DBusValue])
    case dictionary([DBusValue: DBusValue])
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value inside any number of variants.
    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    package var stringValue: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s): s
        default: nil
        }
    }

    package var boolValue: Bool? { if case .bool(let b) = unwrapped { b } else { nil } }

    package var integerValue: Int64? {
        switch unwrapped {
        case .byte(let b): Int64(b)
        case .int(let i): i
        case .uint(let u): u <= UInt64(Int64.max) ? Int64(u) : nil
        default: nil
        }
    }

    package var bytesValue: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): b
        case .array(let items):
            items.allSatisfy { if case .byte = $0 { true } else { false } }
                ? items.compactMap { if case .byte(let b) = $0 { b } else { nil } } : nil
        default: nil
        }
    }

    /// An array of object paths (`ao`), or nil.
    package var objectPaths: [String]? {
        guard case .array(let items) = unwrapped else { return nil }
        return items.compactMap(\.stringValue)
    }

    /// A string-keyed dictionary (`a{sv}`), or nil.
    package var properties: [String: DBusValue]? {
        guard case .dictionary(let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for (key, value) in entries { if let name = key.stringValue { out[name] = value.unwrapped } }
        return out
    }
}
