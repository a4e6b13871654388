extension JSONValue {
    /// The document with each `.bytes` value replaced by the text a person is shown for it
    /// (``TerminalText/escaped(bytes:)``: `\xNN` for each byte outside a valid UTF-8 sequence),
    /// so that it prints as strict UTF-8 JSON with no lone-surrogate escape.
    ///
    /// `.bytes` prints `\udcXX`, which keeps every byte for netrules' own files and for plugins
    /// (PEP 383), but strict readers refuse it: orjson, Home Assistant's JSON loader, drops the
    /// whole message. Everything netrules publishes over MQTT goes through this instead
    /// (docs/mqtt.md): SSID bytes FF FE are published as the text `\xff\xfe`. The exact bytes
    /// are lost in the payload only; facts, rules and netrules' own files keep them.
    public var strictUTF8: JSONValue {
        switch self {
        case .null, .bool, .number, .literal, .string: self
        case .bytes(let bytes): .string(TerminalText.escaped(bytes: bytes))
        case .array(let items): .array(items.map(\.strictUTF8))
        case .object(let members): .object(members.map { ($0.0, $0.1.strictUTF8) })
        }
    }
}
