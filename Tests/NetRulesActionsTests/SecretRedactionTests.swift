import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// `SecretRedaction` on its own: which forms of a value it masks, and what it does with values
/// too short to mask, empty ones and ones the capture limit cut.
@Suite(.timeLimit(.minutes(1)))
struct SecretRedactionTests {
    /// `ab'c"d$e f\g`, written out by hand in each form netrules renders it in.
    static let value = #"ab'c"d$e f\g"#
    static let forms = [
        ("raw", #"ab'c"d$e f\g"#),
        ("shell, unquoted", #"'ab'\''c"d$e f\g'"#),
        ("shell, in double quotes", #"ab'c\"d\$e f\\g"#),
        ("shell, in single quotes", #"ab'\''c"d$e f\g"#),
        ("JSON", #"ab'c\"d$e f\\g"#),
        ("URL component", "ab%27c%22d%24e%20f%5Cg"),
        ("header value", #"ab'c"d$e%20f\g"#),
    ]

    @Test(arguments: SecretRedactionTests.forms)
    func everyFormTheValueIsRenderedInIsMasked(form: (name: String, text: String)) {
        let redaction = SecretRedaction(names: ["TOKEN"], environment: ["TOKEN": Self.value])
        #expect(redaction.redact("before \(form.text) after") == "before <secret> after", "\(form.name)")
    }

    @Test func valuesAreMaskedWhereverTheyRepeatAndOtherVariablesAreLeftAlone() {
        let redaction = SecretRedaction(
            names: ["TOKEN", "UNSET"], environment: ["TOKEN": "s3cret", "HOME": "/root", "PATH": "/usr/bin"])
        #expect(redaction.redact("s3cret/s3crets3cret /root") == "<secret>/<secret><secret> /root")
    }

    @Test func anEmptyOrUnsetValueMasksNothing() {
        for environment in [["TOKEN": ""], [:]] {
            let redaction = SecretRedaction(names: ["TOKEN"], environment: environment)
            #expect(redaction.isEmpty)
            #expect(redaction.redact("exit status 1, TOKEN=") == "exit status 1, TOKEN=")
            let output = CapturedOutput(bytes: Array("plain text\n".utf8))
            #expect(redaction.logText(of: output) == "plain text")
        }
    }

    @Test func aValueTooShortToMaskWithholdsTheOutputButNotTheMessages() {
        let redaction = SecretRedaction(names: ["PIN"], environment: ["PIN": "4a1"])
        #expect(redaction.tooShort == ["PIN"])
        let output = CapturedOutput(bytes: Array("pin is 4a1\n".utf8))
        let text = redaction.logText(of: output)
        #expect(!text.contains("4a1"), "\(text)")
        #expect(text == "(11 bytes withheld: they may show {{env.PIN}}, too short to mask (under 4 bytes))")
        // Masking every "1" would garble the message and spell the value by where it left gaps.
        #expect(redaction.redact("the command exited with status 1") == "the command exited with status 1")
    }

    @Test func theStartOfAValueTheCaptureLimitCutIsNotShown() {
        let redaction = SecretRedaction(names: ["TOKEN"], environment: ["TOKEN": "tok-5c1e9a7d"])
        // The limit fell after "tok-5c": the rest of the value and 100 more bytes were discarded.
        let cut = CapturedOutput(bytes: Array("token: tok-5c".utf8), discardedCount: 106)
        #expect(redaction.logText(of: cut) == "token:  … (112 more bytes)")
        // Nothing was discarded: the same text is just text.
        let whole = CapturedOutput(bytes: Array("token: tok-5c".utf8))
        #expect(redaction.logText(of: whole) == "token: tok-5c")
    }

    @Test func aFailureMessageAndItsCauseAreMasked() {
        let redaction = SecretRedaction(names: ["TOKEN"], environment: ["TOKEN": "s3cret"])
        let cause = ActionError(.transportFailed, "curl said: bad URL /?t=s3cret")
        var result = ActionResult(rule: "r", edge: .enter, index: 0, kind: "webhook")
        result.outcome = .failed(ActionError(.transportFailed, "sending s3cret failed", cause: cause))
        result.output = "stdout: s3cret"
        let masked = redaction.redact(result)
        #expect(masked.output == "stdout: <secret>")
        guard case .failed(let error) = masked.outcome else {
            Issue.record("the outcome changed: \(masked.outcome)")
            return
        }
        #expect(error.description == "sending <secret> failed: curl said: bad URL /?t=<secret>")
        #expect(!error.detailedDescription.contains("s3cret"), "\(error.detailedDescription)")
        #expect(masked.description.contains("<secret>") && !masked.description.contains("s3cret"))
    }
}

/// Real processes print secrets the firing read; the results and the log show `<secret>`.
@Suite(.timeLimit(.minutes(2)))
struct SecretOutputTests {
    static let token = "tok-5c1e9a7d"

    private func runOne(_ command: String, environment: [String: String]) async -> (ActionResult?, [String]) {
        let harness = RunnerHarness(environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 })
        await harness.runner.submit(
            Fixtures.firing(rule: "secret", actions: [RunnerHarness.run(command)]), wallTime: "t")
        let results = await harness.settledResults(expecting: 1)
        return (results.first, harness.log)
    }

    @Test func aTokenInACommandsErrorMessageIsMaskedInTheResultAndTheLog() async throws {
        let (result, log) = await runOne("ls -- {{env.TOKEN}}", environment: ["TOKEN": Self.token])
        let output = try #require(result?.output, "ls printed nothing")
        #expect(result?.exitStatus == 2)
        #expect(output.contains("<secret>"), "\(output)")
        #expect(!output.contains(Self.token), "\(output)")
        #expect(log.contains { $0.contains("output: stderr: ") && $0.contains("<secret>") }, "\(log)")
        #expect(!log.contains { $0.contains(Self.token) }, "\(log)")
    }

    @Test func aTokenWrittenInTwoPiecesIsMaskedWhole() async throws {
        // Half, a pause long enough for the runner to read it on its own, then the other half.
        let (result, _) = await runOne(
            #"sh -c 'printf %.6s "$1"; sleep 0.2; printf "%s\n" "${1#??????}"' sh {{env.TOKEN}}"#,
            environment: ["TOKEN": Self.token])
        #expect(result?.isSuccess == true, "\(String(describing: result))")
        #expect(result?.output == "stdout: <secret>")
    }

    @Test func aTokenTheOutputLimitCutShowsNoPartOfItself() async throws {
        // 16 KiB is the limit: the token starts 4 bytes before it.
        let (result, _) = await runOne(
            #"sh -c 'head -c 16380 /dev/zero | tr "\0" x; printf "%s\n" "$1"' sh {{env.TOKEN}}"#,
            environment: ["TOKEN": Self.token])
        let output = try #require(result?.output)
        #expect(output.hasSuffix("xxx … (13 more bytes)"), "\(output.suffix(40))")
        #expect(!output.contains("tok"), "\(output.suffix(40))")
    }

    @Test func aPluginEchoingItsOptionsShowsTheJSONEscapedTokenMasked() async throws {
        let secret = #"p"q\r-s3cret"#
        let harness = RunnerHarness(environment: ["PATH": "/usr/bin:/bin", "TOKEN": secret])
        let plugins = harness.directory.file("plugins")
        _ = sys_mkdir(plugins, 0o755)
        let path = plugins + "/netrules-action-echo"
        Fixtures.writeFile(path, Array("#!/bin/sh\ncat\n".utf8), mode: 0o755)
        let options = ConfigValue.object([ConfigMember("auth", .string("Bearer {{env.TOKEN}}"))])
        let action = PluginAction(name: "echo", options: options, timeout: .seconds(10), executablePath: path)
        await harness.runner.submit(Fixtures.firing(rule: "p", actions: [ActionSpec(action)]), wallTime: "t")
        let results = await harness.settledResults(expecting: 1)
        let output = try #require(results.first?.output, "the plugin printed nothing")
        #expect(output.contains(#""auth":"Bearer <secret>""#), "\(output)")
        #expect(!output.contains("s3cret"), "\(output)")
        #expect(!harness.log.contains { $0.contains("s3cret") }, "\(harness.log)")
    }
}
