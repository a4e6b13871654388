import NetRulesCore
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct TemplateTests {
    let context = TemplateContext(
        facts: .with([.ssid: "Office", .bssid: "a4:2b:8c:92:47:3c", .ip: .list(["10.0.0.2/24", "fd00::2/64"])]),
        rule: "office-check-in", edge: .enter, time: "2026-11-29T09:00:00Z", environment: ["TOKEN": "s3cret"]
    )

    @Test func rendersFactsAndFiring() throws {
        let t = try Template("{{time}} {{ssid}} {{bssid}} {{ rule }}/{{edge}} {{ip}} {{env.TOKEN}} [{{gateway}}]")
        #expect(
            t.render(context)
                == "2026-11-29T09:00:00Z Office a4:2b:8c:92:47:3c office-check-in/enter 10.0.0.2/24 fd00::2/64 s3cret []"
        )
    }

    @Test func escapesOnlySubstitutedValues() throws {
        let t = try Template("echo {{ssid}} done")
        let quoted = t.render(context) { Array("'".utf8) + $0 + Array("'".utf8) }
        #expect(quoted == "echo 'Office' done")
    }

    @Test func keepsNonUTF8BytesExact() throws {
        var ctx = context
        ctx.facts = .with([.ssid: .text([0x24, 0x28, 0xff, 0x29])])
        #expect(try Template("{{ssid}}").renderBytes(ctx) == [0x24, 0x28, 0xff, 0x29])
    }

    @Test(arguments: [
        "{{hosts.intranet}}", "{{interfaces.wg0}}", "{{portal.url}}", "{{fact.vpn.connected}}", "{{gateway.mac}}",
        "no placeholder", "{single}",
    ])
    func acceptsKnownNames(text: String) throws {
        _ = try Template(text)
    }

    @Test func rejectsUnknownNamesWithOffsetAndSuggestion() {
        #expect(throws: TemplateError(message: "unknown template name 'sid'", offset: 4, hint: "did you mean 'ssid'?"))
        {
            try Template("hi, {{sid}}")
        }
        #expect(throws: TemplateError(message: "unterminated '{{' in template", offset: 0)) {
            try Template("{{ssid")
        }
    }
}

/// JSON numbers no `Double` can hold are a syntax error, not infinity (issue 10, item 11).
@Suite(.timeLimit(.minutes(1)))
struct JSONNumberRangeTests {
    @Test(arguments: ["1e999", "-1e999", #"{"version":1e400}"#, "[1, 2e308]"])
    func anInfiniteNumberIsRefused(text: String) {
        #expect(throws: (any Error).self) { try JSONValue.parse(Array(text.utf8)) }
    }

    @Test func largeFiniteNumbersStillParse() throws {
        #expect(try JSONValue.parse(Array("1.7e308".utf8)).numberValue == 1.7e308)
    }
}
