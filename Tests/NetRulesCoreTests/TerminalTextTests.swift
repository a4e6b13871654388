import Testing

@testable import NetRulesCore

/// The one escaper for human-readable output: what it escapes, how, and what it leaves alone.
@Suite(.timeLimit(.minutes(1)))
struct TerminalTextTests {
    @Test(arguments: [
        ("plain SSID", "plain SSID"),
        ("Café ☕ 東京", "Café ☕ 東京"),
        (#"back\slash"#, #"back\slash"#),
        ("line\nforged", #"line\nforged"#),
        ("cr\rtab\t", #"cr\rtab\t"#),
        ("\u{1B}]0;title\u{7}", #"\x1b]0;title\x07"#),
        ("\u{1B}[2J", #"\x1b[2J"#),
        ("nul\u{0}bs\u{8}del\u{7F}", #"nul\x00bs\x08del\x7f"#),
        ("csi\u{9B}2J osc\u{9D}8;;file:///etc/passwd\u{9C}", #"csi\u{9B}2J osc\u{9D}8;;file:///etc/passwd\u{9C}"#),
        ("nel\u{85}", #"nel\u{85}"#),
        ("sep\u{2028}par\u{2029}", #"sep\u{2028}par\u{2029}"#),
        ("rlo\u{202E}gpj.exe", #"rlo\u{202E}gpj.exe"#),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", #"\u{202A}\u{202B}\u{202C}\u{202D}"#),
        ("\u{2066}\u{2067}\u{2068}\u{2069}", #"\u{2066}\u{2067}\u{2068}\u{2069}"#),
        ("alm\u{61C}lrm\u{200E}rlm\u{200F}", #"alm\u{61C}lrm\u{200E}rlm\u{200F}"#),
        ("Off\u{200B}ice\u{200C}\u{200D}", #"Off\u{200B}ice\u{200C}\u{200D}"#),
        ("\u{FEFF}wj\u{2060}\u{2064}cgj\u{34F}shy\u{AD}", #"\u{FEFF}wj\u{2060}\u{2064}cgj\u{34F}shy\u{AD}"#),
        ("tag\u{E0000}\u{E0001}\u{E0041}\u{E007F}", #"tag\u{E0000}\u{E0001}\u{E0041}\u{E007F}"#),
        // Once anything is escaped, backslashes are doubled so the text reads back unambiguously.
        (#"a\x1b"# + "\u{1B}", #"a\\x1b\x1b"#),
    ])
    func escapes(_ text: String, _ shown: String) {
        #expect(TerminalText.escaped(text) == shown)
        #expect(!TerminalText.escaped(text).unicodeScalars.contains(where: TerminalText.needsEscaping))
    }

    @Test func everyControlBidiAndFormatScalarIsEscapedAndNothingElseBelowU3000() {
        let expected: Set<UInt32> = Set(0..<0x20).union(0x7F...0x9F).union([0x61C, 0x200E, 0x200F, 0x2028, 0x2029])
            .union(0x202A...0x202E).union(0x2066...0x2069)
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let isFormat = scalar.properties.generalCategory == .format || value == 0x34F
            #expect(TerminalText.needsEscaping(scalar) == (expected.contains(value) || isFormat), "U+\(hex(value))")
        }
    }

    /// The invisible format characters (category Cf) hide text or make two values look alike:
    /// each one below U+E0080 (the last tag) shows as its escape, alone and amid text.
    @Test func everyFormatScalarIsEscaped() {
        let format = (UInt32(0)..<0xE0080).compactMap(Unicode.Scalar.init).filter {
            $0.properties.generalCategory == .format
        }
        // The ones the issue names, so a table built from a stdlib without them still fails.
        for named in [
            0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0xE0001, 0xE0020, 0xE007F,
        ] {
            #expect(format.contains { $0.value == named }, "U+\(hex(UInt32(named))) is Cf")
        }
        #expect(format.count > 150)
        for scalar in format + ["\u{34F}", "\u{E0000}", "\u{E0002}", "\u{E001F}"] {
            let shown = "\\u{\(hex(scalar.value))}"
            #expect(TerminalText.escaped("a\(Character(scalar))b") == "a\(shown)b", "U+\(hex(scalar.value))")
            #expect(TerminalText.escaped(bytes: [0xFF] + Array(String(scalar).utf8)) == #"\xff"# + shown)
            #expect(TerminalText.quoted(String(scalar)) == "\"\(shown)\"")
        }
        // What sits next to them is kept: a variation selector, a combining accent, an emoji.
        #expect(TerminalText.escaped("e\u{301} \u{2764}\u{FE0F} \u{1F600}") == "e\u{301} \u{2764}\u{FE0F} \u{1F600}")
    }

    @Test func bytesThatAreNotUTF8ShowAsHexAndNeverAsTheirControls() {
        // 0x9B alone is not UTF-8: shown as the byte \x9b, never as a C1 CSI the terminal would obey.
        #expect(TerminalText.escaped(bytes: [0x41, 0x9B, 0x32, 0x4A, 0x1B, 0x5C, 0xFF]) == #"A\x9b2J\x1b\\\xff"#)
        #expect(TerminalText.escaped(bytes: Array("Café".utf8)) == "Café")
        #expect(TerminalText.escaped(bytes: Array("C\u{9B}".utf8)) == #"C\u{9B}"#)
        // Valid sequences between such bytes are text: only the bytes outside them are \xNN.
        #expect(TerminalText.escaped(bytes: Array("Café".utf8) + [0xFF, 0xE2, 0x82]) == #"Café\xff\xe2\x82"#)
        #expect(TerminalText.escaped(bytes: [0xFF] + Array("\u{202E}\n東".utf8)) == #"\xff\u{202E}\n東"#)
    }

    @Test func quotedValuesEscapeQuotesAndBackslashesToo() {
        #expect(TerminalText.quoted("Café Wi-Fi") == #""Café Wi-Fi""#)
        #expect(TerminalText.quoted(#"say "hi" \ "#) == #""say \"hi\" \\ ""#)
        #expect(TerminalText.quoted("") == #""""#)
        #expect(TerminalText.quoted("\u{202E}x\n") == #""\u{202E}x\n""#)
        #expect(TerminalText.quoted(bytes: [0x22, 0xFF]) == #""\"\xff""#)
    }

    @Test func linesKeepTheirBreaksAndEscapeTheRest() {
        #expect(TerminalText.escapedLines("one\ntwo") == "one\ntwo")
        #expect(TerminalText.escapedLines("one\u{1B}[2J\ntwo\r") == "one\\x1b[2J\ntwo\\r")
    }

    private func hex(_ value: UInt32) -> String { String(value, radix: 16, uppercase: true) }
}
