import NetRulesCore
import NetRulesMQTT
import Testing

/// What a message on a `subscribe:` topic makes of `mqtt.NAME`, and which topics a filter matches.
@Suite(.timeLimit(.minutes(1)))
struct SubscribedPayloadTests {
    @Test(arguments: [
        ("open", FactState.value(.string("open"))),
        ("\"open\"", .value(.string("open"))),
        ("21.5", .value(.number(21.5))),
        (" 7 ", .value(.number(7))),
        ("true", .value(.bool(true))),
        ("false", .value(.bool(false))),
        ("null", .absent),
        ("", .absent),
        ("{\"state\":\"open\"}", .value(.string("{\"state\":\"open\"}"))),
        ("[1,2]", .value(.string("[1,2]"))),
        ("1e999", .value(.string("1e999"))),
        ("\"inf\"", .value(.string("inf"))),
        ("-1e3", .value(.number(-1000))),
        ("\"unterminated", .value(.string("\"unterminated"))),
        ("\u{1b}]0;x\u{7}\r$(reboot)", .value(.string("\u{1b}]0;x\u{7}\r$(reboot)"))),
    ])
    func aPayloadBecomesAJSONScalarOrItsText(payload: String, expected: FactState) {
        #expect(SubscribedPayload.state(Array(payload.utf8)) == .success(expected))
    }

    @Test func bytesThatAreNotUTF8StayExactBytes() {
        let payload: [UInt8] = [0x6F, 0xFF, 0xFE, 0x0A, 0x80]
        #expect(SubscribedPayload.state(payload) == .success(.value(.bytes(payload))))
        #expect(TerminalText.escaped(bytes: payload) == "o\\xff\\xfe\\n\\x80")
    }

    @Test func aPayloadOverTheLimitIsRefused() {
        let limit = SubscribedPayload.limit
        let atLimit = [UInt8](repeating: 0x61, count: limit)
        #expect(SubscribedPayload.state(atLimit) == .success(.value(.string(String(repeating: "a", count: limit)))))
        let megabyte = [UInt8](repeating: 0x61, count: 1 << 20)
        #expect(SubscribedPayload.state(megabyte) == .failure(.init(size: 1 << 20)))
        #expect(
            "\(SubscribedPayload.Refusal(size: 1 << 20))" == "the message is 1048576 bytes long; at most 1024 are kept")
    }

    @Test(arguments: [
        ("office/door/state", "office/door/state", true),
        ("office/door/state", "office/door", false),
        ("office/door", "office/door/state", false),
        ("sensors/+/temp", "sensors/kitchen/temp", true),
        ("sensors/+/temp", "sensors/kitchen/hall/temp", false),
        ("sensors/+", "sensors/", true),
        ("sensors/#", "sensors", true),
        ("sensors/#", "sensors/a/b/c", true),
        ("#", "anything/at/all", true),
        ("#", "$SYS/broker/uptime", false),
        ("+/broker/uptime", "$SYS/broker/uptime", false),
        ("$SYS/broker/uptime", "$SYS/broker/uptime", true),
    ])
    func aTopicFilterMatchesAsMQTTSays(filter: String, topic: String, matches: Bool) {
        #expect(SubscribedPayload.topic(topic, matches: filter) == matches)
    }
}
