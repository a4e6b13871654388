import NetRulesCore
import NetRulesTesting
import Testing

/// Which `run:` commands the runner may start without a shell, and the argv it then uses.
@Suite(.timeLimit(.minutes(1)))
struct ShellSimpleCommandTests {
    private func argv(_ command: String, ssid: FactValue = "Office") throws -> [String]? {
        let template = try ShellCommandTemplate(command)
        let context = TemplateContext(facts: .with([.ssid: ssid]), rule: "r", edge: .enter, time: "t")
        return template.simpleCommand?.arguments(context).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(arguments: [
        ("logger -t netrules -- {{ssid}}", ["logger", "-t", "netrules", "--", "Office"]),
        ("notify-send 'Joined {{ssid}}'", ["notify-send", "Joined Office"]),
        ("/usr/bin/printf '%s\\n' \"x {{ssid}} y\"", ["/usr/bin/printf", "%s\\n", "x Office y"]),
        ("  cmd   a\tb  ", ["cmd", "a", "b"]),
        ("cmd a\n\n", ["cmd", "a"]),
        ("cmd '' \"\" x''y", ["cmd", "", "", "xy"]),
        ("cmd \\$HOME \\* \\~ a\\ b", ["cmd", "$HOME", "*", "~", "a b"]),
        ("cmd '$(x) `y` *' \"it's\" 'a\nb'", ["cmd", "$(x) `y` *", "it's", "a\nb"]),
        ("cmd x{{ssid}}y'{{ssid}}'\"{{ssid}}\"", ["cmd", "xOfficeyOfficeOffice"]),
        ("./bin/run-me --opt=v a,b:c@d%e+f", ["./bin/run-me", "--opt=v", "a,b:c@d%e+f"]),
        ("/bin/echo héllo", ["/bin/echo", "héllo"]),
        ("'my command' x", ["my command", "x"]),
    ])
    func aCommandOfPlainWordsRunsDirectly(command: String, expected: [String]) throws {
        #expect(try argv(command) == expected)
    }

    @Test(arguments: [
        // Operators, redirections, several commands.
        "echo a | cat", "cmd a; cmd b", "cmd &", "cmd && x", "cmd || x", "cmd a\ncmd b", "cmd > f", "cmd < f",
        "cmd 2>f", "cmd >> f", "(cmd)", "cmd <<EOF\nx\nEOF\n",
        // Expansions, globs, tilde, braces, comments.
        "cmd $HOME", "cmd \"$HOME\"", "cmd $(date)", "cmd `date`", "cmd \"a\\\"b\"", "ls *", "ls a?", "ls [ab]",
        "~/bin/x", "cmd ~", "cmd a{b,c}", "{ cmd; }", "cmd # note", "cmd a#b", "cmd !x", "cmd ]",
        // Assignments and line continuations.
        "x=1 cmd", "X={{ssid}} cmd", "cmd a\\\nb",
        // The shell's own commands and words.
        "echo", "echo {{ssid}}", "'echo' hi", "cd /", "printf '%s' {{ssid}}", "test -f x", "[ -f x ]", "kill 1",
        "true", ":", ". ./x", "exec cmd", "if", "time cmd", "source x", "pwd",
        // Nothing to run, or an empty name.
        "", "   ", "'' x", "\"\"",
    ])
    func anythingElseGoesThroughTheShell(command: String) throws {
        #expect(try argv(command) == nil)
    }

    @Test func aCommandNamedWithASlashIsNeverTheShellsOwn() throws {
        #expect(try argv("/bin/echo hi") == ["/bin/echo", "hi"])
        #expect(try argv("./test x") == ["./test", "x"])
    }

    @Test func aValueIsOneArgumentCutAtItsFirstNULAsInTheCommandLine() throws {
        let hostile: FactValue = .text(Array("a b'\"$(x)`y`\\\n*".utf8) + [0x00, 0x7A])
        #expect(
            try argv("cmd {{ssid}} '{{ssid}}' \"{{ssid}}\"", ssid: hostile)
                == Array(repeating: "a b'\"$(x)`y`\\\n*", count: 3).prepending("cmd"))
    }

    @Test func anEmptyValueIsStillAnArgument() throws {
        #expect(try argv("cmd {{ssid}} x", ssid: "") == ["cmd", "", "x"])
        #expect(try argv("cmd \"{{ssid}}\"", ssid: "") == ["cmd", ""])
    }
}

extension Array {
    fileprivate func prepending(_ element: Element) -> [Element] { [element] + self }
}
