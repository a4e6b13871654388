import NetRulesCore
import Testing

/// Which files a `run:` command's text names as its program and script, and where: what the
/// runner checks before it runs them as root and `check` warns about (issue 34, item 6).
@Suite(.timeLimit(.minutes(1)))
struct ShellProgramReferenceTests {
    /// `word@offset` for a program, `script:word@offset` for a script.
    static func read(_ command: String) throws -> [String] {
        ShellProgramReference.references(in: try ShellCommandTemplate(command)).map {
            ($0.role == .script ? "script:" : "") + "\($0.word)@\($0.offset)"
        }
    }

    @Test(arguments: [
        ("vpn-toggle up", ["vpn-toggle@0"]),
        ("  /usr/local/bin/vpn-toggle up {{edge}}", ["/usr/local/bin/vpn-toggle@2"]),
        ("vpn-up | logger -t netrules", ["vpn-up@0"]),
        ("vpn-up>/dev/null", ["vpn-up@0"]),
        ("LANG=C FOO=1 /opt/x/run now", ["/opt/x/run@13"]),
        ("exec /opt/x/run", ["/opt/x/run@5"]),
        ("command -p ls", ["ls@11"]),
        (". /etc/netrules/lib.sh", ["script:/etc/netrules/lib.sh@2"]),
        ("sh /opt/x/up.sh arg", ["sh@0", "script:/opt/x/up.sh@3"]),
        ("/bin/bash -e -u /opt/x/up.sh", ["/bin/bash@0", "script:/opt/x/up.sh@16"]),
        ("python3 -u tool.py", ["python3@0", "script:tool.py@11"]),
        ("bash -- /opt/x/up.sh", ["bash@0", "script:/opt/x/up.sh@8"]),
        // Programs from the command line or standard input: no script file.
        ("sh -c 'echo hi'", ["sh@0"]),
        ("bash -ec true", ["bash@0"]),
        ("python3 -m http.server", ["python3@0"]),
        ("perl -e 1", ["perl@0"]),
        // The shell's own, or a word only the shell can read: nothing to check.
        ("echo hi", []),
        ("if true; then /opt/x/run; fi", []),
        ("'/opt/my dir/run'", []),
        ("$HOME/bin/run", []),
        ("logger {{ssid}}", ["logger@0"]),
        ("sh \"/opt/x/up.sh\"", ["sh@0"]),
    ])
    func theProgramAndScriptOfACommand(command: String, expected: [String]) throws {
        #expect(try Self.read(command) == expected, "\(command)")
    }
}
