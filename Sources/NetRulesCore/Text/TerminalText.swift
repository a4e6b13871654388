/// Text made safe to show a person: the one escaper every human-readable output goes through.
///
/// Values netrules shows come from the network (an SSID is any 32 bytes, a portal's `Location`
/// any header), from plugins and from programs' output. Shown raw, such a value can move the
/// cursor, clear the screen, retitle the terminal, plant an OSC 8 hyperlink, start a forged line,
/// or reorder what a person reads with bidirectional overrides. So the text renderers of every
/// command (`status`, `watch`, `history`, `explain`, `facts`, `portal`, `simulate`, `doctor`),
/// diagnostics that quote a value, and the daemon's log lines show these scalars as visible
/// escapes:
/// - C0 controls, DEL and C1 controls (general category Cc): `\n`, `\r`, `\t`, else `\xNN` for
///   U+0000–U+007F and `\u{NN}` for U+0080–U+009F;
/// - the line and paragraph separators U+2028 and U+2029, which some viewers break lines at;
/// - the invisible format characters, as `\u{NNNN}`: every scalar of general category Cf (the
///   bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069, the soft
///   hyphen U+00AD, the zero-width U+200B–U+200D, U+2060–U+2064, U+FEFF, the tags
///   U+E0001–U+E007F …), the combining grapheme joiner U+034F, and the whole tag block
///   U+E0000–U+E007F, assigned or not. These hide text or make two different values look the same
///   (`Office` and `Off\u{200B}ice`); an emoji sequence joined by U+200D shows its joiners;
/// - bytes that are not UTF-8 (``escaped(bytes:)``), as `\xNN`: a raw byte is always `\x` with
///   two digits, a scalar at or above U+0080 always `\u{…}`, so the two cannot be confused.
///
/// Text with nothing to escape is returned as it is, backslashes included. Text with something
/// to escape also has its backslashes doubled, so the escaped form reads back unambiguously.
/// Everything else, letters of any script and emoji included, is kept. `--json` output does not
/// go through this: it stays exact, and JSON writes each scalar this escapes as `\uXXXX`
/// (`JSONValue`), so a reader gets the same text.
public enum TerminalText {
    /// Whether `scalar` is shown as an escape.
    public static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        if value < 0xAD { return false }
        switch value {
        case 0x034F, 0x2028, 0x2029, 0xE0000...0xE007F: return true
        default: return scalar.properties.generalCategory == .format
        }
    }

    /// `text` with every scalar that ``needsEscaping(_:)`` shown as an escape.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscaping) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars { append(scalar, to: &out) }
        return out
    }

    /// Text of several lines for a person to read: each line as ``escaped(_:)`` shows it, the line
    /// breaks (`\n`) kept. For messages netrules composes over several lines (an error with its
    /// log tail, a usage error's list of choices) that quote values.
    public static func escapedLines(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: { $0 != "\n" && needsEscaping($0) }) else { return String(text) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped($0) }.joined(separator: "\n")
    }

    /// Bytes for a person to read: valid UTF-8 as ``escaped(_:)`` shows it; otherwise each byte
    /// outside a valid UTF-8 sequence as `\xNN`, and the valid sequences between them as
    /// ``escaped(_:)`` shows their scalars (`\` as `\\`): `Café` and FF read `Café\xff`.
    ///
    /// MQTT payloads show such bytes this way too (`JSONValue.strictUTF8`).
    public static func escaped(bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return escaped(text) }
        let bytes = Array(bytes)
        var out = ""
        out.reserveCapacity(bytes.count + 8)
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var position = 0
        parsing: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                append(Unicode.UTF8.decode(encoded), to: &out)
                position += encoded.count
            case .error(let length):
                for byte in bytes[position..<position + length] { out += "\\x" + FactValue.hexByte(byte) }
                position += length
            case .emptyInput:
                break parsing
            }
        }
        return out
    }

    /// `text` in double quotes, escaped as ``escaped(_:)`` does and with every `"` and `\`
    /// escaped too, for a value shown among other words (`"Café Wi-Fi"`, `"a\"b"`, `""`).
    public static func quoted(_ text: some StringProtocol) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            if scalar == "\"" { out += "\\\"" } else { append(scalar, to: &out) }
        }
        return out + "\""
    }

    /// Bytes in double quotes: ``quoted(_:)`` for UTF-8, else ``escaped(bytes:)`` with `"` escaped.
    public static func quoted(bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return quoted(text) }
        return "\"" + escaped(bytes: bytes).replacing("\"", with: "\\\"") + "\""
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String) {
        if scalar == "\\" {
            out += "\\\\"
        } else if !needsEscaping(scalar) {
            out.unicodeScalars.append(scalar)
        } else if scalar.value < 0x80 {
            out += escape(forASCII: UInt8(scalar.value))
        } else {
            out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    private static func escape(forASCII byte: UInt8) -> String {
        switch byte {
        case 0x0A: "\\n"
        case 0x0D: "\\r"
        case 0x09: "\\t"
        default: "\\x" + FactValue.hexByte(byte)
        }
    }
}
