import NetRulesCore
import NetRulesTesting
import Testing

/// The `run:` command lexer: the quoting context of every placeholder, what it refuses, what it
/// warns about, and how values are rendered in each context.
@Suite(.timeLimit(.minutes(1)))
struct ShellCommandTemplateTests {
    private func contexts(_ command: String) throws -> [ShellQuotingContext] {
        try ShellCommandTemplate(command).contexts
    }

    private func errors(_ command: String) -> [ShellTemplateIssue] {
        do {
            _ = try ShellCommandTemplate(command)
            return []
        } catch {
            return error.issues.filter { $0.severity == .error }
        }
    }

    private func warnings(_ command: String) throws -> [ShellTemplateIssue] {
        try ShellCommandTemplate(command).warnings
    }

    // MARK: Contexts

    @Test(arguments: [
        ("echo {{ssid}}", [ShellQuotingContext.unquoted]),
        ("echo x{{ssid}}y", [.unquoted]),
        ("echo \"Joined {{ssid}}\"", [.doubleQuoted]),
        ("notify-send 'Joined {{ssid}}'", [.singleQuoted]),
        ("echo \"a\" {{ssid}} 'b' \"{{bssid}}\"", [.unquoted, .doubleQuoted]),
        ("echo \"it's {{ssid}}\" 'say \"{{bssid}}\"'", [.doubleQuoted, .singleQuoted]),
        ("echo \"\\\"{{ssid}}\\\"\"", [.doubleQuoted]),
        ("X={{ssid}} env", [.unquoted]),
        ("echo '{{ssid}}'\"{{bssid}}\"{{rule}}", [.singleQuoted, .doubleQuoted, .unquoted]),
        ("echo \"$(date) {{ssid}}\"", [.doubleQuoted]),
        ("echo \"${HOME}\" {{ssid}}", [.unquoted]),
        ("echo \"$((1 + 2))\" -- {{ssid}}", [.unquoted]),
        ("echo `date` -- {{ssid}}", [.unquoted]),
        ("cat <<EOF\nbody\nEOF\necho -- {{ssid}}", [.unquoted]),
        ("echo hi # a comment\necho -- {{ssid}}", [.unquoted]),
        ("echo a#b -- {{ssid}}", [.unquoted]),
        ("if true; then echo -- \"{{ssid}}\"; fi", [.doubleQuoted]),
        ("sh -c 'echo \"$1\"' sh {{ssid}}", [.unquoted]),
        ("printf '%s\\n' {{ssid}} >> /var/log/x", [.unquoted]),
    ])
    func eachPlaceholderHasTheShellsContext(command: String, expected: [ShellQuotingContext]) throws {
        #expect(try contexts(command) == expected)
    }

    // MARK: Refused

    @Test(arguments: [
        "echo $({{ssid}})", "echo \"$(echo {{ssid}})\"", "echo `echo {{ssid}}`", "echo \"`{{ssid}}`\"",
        "echo ${x:-{{ssid}}}", "echo \"${x:-{{ssid}}}\"", "echo $(( {{ssid}} + 1 ))", "(( {{ssid}} ))",
        "cat <<EOF\n{{ssid}}\nEOF", "cat <<{{ssid}}\nx\n", "cat <<-EOF\n\t{{ssid}}\n\tEOF",
        "echo hi # {{ssid}}", "eval echo {{ssid}}", "eval \"echo {{ssid}}\"", "sh -c 'echo {{ssid}}'",
        "bash -c \"notify {{ssid}}\"", "sudo sh -ec 'x {{ssid}}'", "/bin/bash -c {{ssid}}", "ssh host echo {{ssid}}",
        "env FOO=1 dash -c '{{ssid}}'", "su -c 'echo {{ssid}}' alice", "python3 -c 'print(\"{{ssid}}\")'",
        "perl -e 'print \"{{ssid}}\"'", "awk 'BEGIN { print \"{{ssid}}\" }'", "trap 'echo {{ssid}}' EXIT",
        ". {{ssid}}", "source ./{{ssid}}", "watch echo {{ssid}}", "{{ssid}}", "{{ssid}} --help", "/usr/bin/{{ssid}}",
        "echo x | {{ssid}}", "echo ${{ssid}}", "echo \"${{ssid}}\"", "echo \\{{ssid}}", "echo \"\\{{ssid}}\"",
        "echo $'{{ssid}}'", "echo $\"{{ssid}}\"", "diff <(echo {{ssid}}) x",
        "echo \"$(case x in a) ;; esac)\" {{ssid}}",
        "sh {{ssid}}", "echo \"unterminated {{ssid}}", "echo 'unterminated {{ssid}}", "let x={{ssid}}",
        "echo $[ {{ssid}} + 1 ]",
    ])
    func refusesContextsNoQuotingMakesSafe(command: String) {
        let found = errors(command)
        #expect(!found.isEmpty, "accepted: \(command)")
    }

    @Test func aRefusalNamesThePlaceholderItsOffsetAndTheEnvironmentVariable() throws {
        let found = errors("echo \"$(cat {{portal.url}})\" {{ssid}}")
        let issue = try #require(found.first)
        #expect(found.count == 1)
        #expect(issue.offset == 12)
        #expect(issue.message.contains("'{{portal.url}}'"))
        #expect(issue.message.contains("$(…)"))
        #expect(issue.hint?.contains("\"$NETRULES_PORTAL_URL\"") == true)
    }

    @Test func everyRefusedPlaceholderIsReportedOnce() {
        let found = errors("eval {{ssid}} {{bssid}}; echo `{{rule}}`")
        #expect(found.map(\.offset) == [5, 14, 31])
    }

    @Test func anUnterminatedQuoteIsAnErrorEvenWithoutPlaceholders() {
        #expect(errors("echo 'oops").count == 1)
        #expect(errors("echo \"oops").first?.offset == 5)
    }

    @Test func aCaseInsideASubstitutionMakesLaterPlaceholdersRefused() {
        // A naive reader would end the substitution at `a)` and treat the rest as top level.
        #expect(!errors("echo \"$(case $x in a) echo {{ssid}};; esac)\"").isEmpty)
        #expect(errors("case $x in a) echo -- {{ssid}};; esac").isEmpty)
    }

    // MARK: Warnings

    @Test(arguments: [
        "sort {{ssid}} < /dev/null", "echo {{ssid}}", "ls \"{{ssid}}\"", "cp '{{ssid}}' /tmp", "sudo {{ssid}}",
    ])
    func aValueThatBeginsAWordBeforeDoubleDashIsAWarning(command: String) throws {
        let found = try warnings(command)
        #expect(found.count == 1)
        #expect(found.first?.severity == .warning)
        #expect(found.first?.hint?.contains("'--'") == true)
    }

    @Test(arguments: [
        "sort -- {{ssid}}", "ls ./{{ssid}}", "echo x{{ssid}}", "printf '%s' {{ssid}}", "cmd --name={{ssid}}",
        "echo -- \"$NETRULES_SSID\"", "sh -c 'echo \"$1\"' sh {{ssid}}",
    ])
    func noWarningWhereTheValueCannotBeAnOption(command: String) throws {
        #expect(try warnings(command).isEmpty)
    }

    @Test func aValueNamingARedirectionsFileIsAWarning() throws {
        let found = try warnings("echo hi > /tmp/{{ssid}}")
        #expect(found.count == 1)
        #expect(found.first?.message.contains("redirection") == true)
        #expect(try warnings("echo hi 2>&1 >> /var/log/x").isEmpty)
    }

    // MARK: Rendering

    private let hostile: [UInt8] = Array("a'b\"c$(d)`e`\\f\ng --x".utf8) + [0xFF]

    @Test func unquotedValuesAreSingleQuoted() {
        #expect(ShellQuoting.render(Array("it's".utf8), in: .unquoted) == Array("'it'\\''s'".utf8))
        #expect(ShellQuoting.render([], in: .unquoted) == Array("''".utf8))
        #expect(ShellQuoting.render([0x61, 0x00, 0x62], in: .unquoted) == Array("'a'".utf8))
    }

    @Test func doubleQuotedValuesEscapeTheFourSpecialCharacters() {
        #expect(
            ShellQuoting.render(hostile, in: .doubleQuoted)
                == Array("a'b\\\"c\\$(d)\\`e\\`\\\\f\ng --x".utf8) + [0xFF])
    }

    @Test func singleQuotedValuesCloseAndReopenAroundAQuote() {
        #expect(ShellQuoting.render(hostile, in: .singleQuoted) == Array("a'\\''b\"c$(d)`e`\\f\ng --x".utf8) + [0xFF])
    }

    @Test func renderingUsesEachPlaceholdersContext() throws {
        let command = try ShellCommandTemplate("echo {{ssid}} \"{{ssid}}\" '{{ssid}}'")
        let context = TemplateContext(facts: .with([.ssid: "$(x)'"]), rule: "r", edge: .enter, time: "t")
        #expect(command.render(context) == Array("echo '$(x)'\\''' \"\\$(x)'\" '$(x)'\\'''".utf8))
    }
}
