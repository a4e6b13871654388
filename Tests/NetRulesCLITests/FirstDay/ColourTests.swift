import Foundation
import Testing

@testable import NetRulesCLI

/// Colour on a terminal (issue 24, item 4): one type decides, `NO_COLOR` turns it off,
/// `CLICOLOR_FORCE` on; untrusted text is escaped before any colour goes around it.
@Suite(.timeLimit(.minutes(1)))
struct ColourTests {
    @Test(arguments: [
        ([String: String](), true, true), ([:], false, false), (["NO_COLOR": "1"], true, false),
        (["NO_COLOR": ""], true, true), (["CLICOLOR_FORCE": "1"], false, true), (["CLICOLOR_FORCE": "0"], false, false),
        (["NO_COLOR": "yes", "CLICOLOR_FORCE": "1"], true, false),
    ])
    func theStreamAndTheEnvironmentDecide(environment: [String: String], isTerminal: Bool, colour: Bool) {
        #expect(TerminalStyle.decide(environment: environment, isTerminal: isTerminal).isEnabled == colour)
    }

    @Test func aBufferIsNoTerminalSoTestsAndPipesGetNoColour() async {
        let r = await CommandTests.run("check", CommandTests.path("rules"))
        #expect(r.stdout == "ok: 4 rules\n")
    }

    @Test func untrustedTextIsEscapedBeforeItIsColoured() {
        let hostile = "portal\u{1B}[0m\u{1B}]0;pwned\u{7}"
        let painted = TerminalStyle.colored.paint(verdict: hostile)
        // One colour-less escape of netrules' own: no ESC from the text survives.
        #expect(!painted.unicodeScalars.contains("\u{1B}"))
        #expect(TerminalStyle.colored.paint(verdict: "online") == "\u{1B}[32monline\u{1B}[0m")
        #expect(TerminalStyle.plain.paint(verdict: "online") == "online")
    }

    /// `check` of a broken file with colour forced on, and the same with `NO_COLOR` winning.
    @Test func checkColoursSeveritiesOnlyWhenAsked() async throws {
        let file = CommandTests.path("Tests/NetRulesConfigTests/Golden/unknown-keys.yaml")
        let base = ["COLUMNS": "80", "PATH": "/usr/bin:/bin"]
        let coloured = await CommandTests.run(
            ["check", file], environment: base.merging(["CLICOLOR_FORCE": "1"]) { $1 })
        let plain = await CommandTests.run(
            ["check", file], environment: base.merging(["CLICOLOR_FORCE": "1", "NO_COLOR": "1"]) { $1 })
        #expect(coloured.code == 65 && plain.code == 65)
        let prefix = CommandTests.root.path + "/"
        try FirstDayGolden.compare(
            coloured.stderr.replacingOccurrences(of: prefix, with: ""), to: "check-colour-on.stderr")
        try FirstDayGolden.compare(
            plain.stderr.replacingOccurrences(of: prefix, with: ""), to: "check-colour-off.stderr")
        #expect(coloured.stderr.contains("\u{1B}[31merror\u{1B}[0m: "))
        #expect(!plain.stderr.contains("\u{1B}"))
        let ok = await CommandTests.run(
            ["check", CommandTests.path("rules")],
            environment: base.merging(["CLICOLOR_FORCE": "1", "CHECKIN_TOKEN": "t"]) { $1 })
        #expect(ok.stdout == "\u{1B}[32mok\u{1B}[0m: 4 rules\n")
    }

    /// The built binary with `TZ` pinned, so `{{time}}` in the golden is the same everywhere.
    @Test func simulateColoursTheEdgesAndKeepsTheColumnsAligned() throws {
        let arguments = ["portal-notice.rules.yaml", "-t", "portal-notice.timeline.yaml"]
        let coloured = try SimulateTextTests.simulateInBerlin(arguments, environment: ["CLICOLOR_FORCE": "1"])
        let plain = try SimulateTextTests.simulateInBerlin(
            arguments, environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"])
        #expect(coloured.code == 0 && plain.code == 0)
        #expect(coloured.stdout.contains("portal-notice  \u{1B}[1;32menter\u{1B}[0m  run, write"))
        #expect(!plain.stdout.contains("\u{1B}"))
        // Without the escapes, the coloured output is the plain one: the columns stay aligned.
        let stripped = coloured.stdout.replacingOccurrences(
            of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        #expect(stripped == plain.stdout)
        try FirstDayGolden.compare(coloured.stdout, to: "simulate-colour-on.text")
        try FirstDayGolden.compare(plain.stdout, to: "simulate-colour-off.text")
    }

    /// `doctor` lines wrap to the terminal width under the name, the status label in colour.
    @Test func doctorLinesWrapToTheWidthWithTheLabelColoured() throws {
        let check = DoctorCheck.warning(
            "networkmanager",
            "NetworkManager is not on the system bus, so connection, vpn and nm.connectivity stay unknown",
            fix: "start NetworkManager, or remove the rules that read those facts")
        let plain = check.text(style: .plain, width: 60)
        let coloured = check.text(style: .colored, width: 60)
        for line in plain.split(separator: "\n") { #expect(line.count <= 60, "\(line)") }
        #expect(
            plain.split(separator: "\n").dropFirst().allSatisfy {
                $0.hasPrefix("         ") && !$0.hasPrefix("          ")
            })
        #expect(coloured.hasPrefix("\u{1B}[33mwarning\u{1B}[0m  networkmanager: "))
        try FirstDayGolden.compare(plain + "\n---\n" + coloured + "\n", to: "doctor-wrapped.text")
        #expect(check.text == check.text(style: .plain, width: .max))
    }
}
