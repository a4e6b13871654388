import Foundation
import NetRulesProbes
import Testing

@testable import NetRulesCLI

/// The exit codes a script can branch on (issue 24 item 5, STYLE §22): `portal`'s verdict, 66 for an input file
/// that cannot be read, 64 for a bad option value as for an unknown option.
@Suite(.timeLimit(.minutes(1)))
struct ExitCodeTests {
    @Test func portalSaysItsVerdictInItsExitStatus() {
        #expect(PortalSubcommand.exitCode(for: .online) == 0)
        #expect(PortalSubcommand.exitCode(for: .portal) == 2)
        #expect(PortalSubcommand.exitCode(for: .offline) == 3)
    }

    @Test func portalWithNothingAnsweringExits3() async {
        // Nothing listens on port 1 of loopback: refused at once, so no probe is conclusive.
        let r = await CommandTests.run("portal", "--url", "http://127.0.0.1:1/hotspot-detect.html", "--timeout", "2")
        #expect(r.code == 3, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("connectivity: offline\n"), "\(r.stdout)")
    }

    @Test func portalHelpDocumentsTheExitStatuses() async {
        let r = await CommandTests.run("portal", "--help")
        let words = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("The verdict is the exit status, for scripts: 0 online, 2 portal, 3 offline"))
        let page = ManualPages.commandReference.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(page.contains("0 online, 2 portal, 3 offline"))
    }

    @Test(arguments: [
        ["check", "/nonexistent/rules.yaml"],
        ["simulate", "/nonexistent/rules.yaml", "-t", "/nonexistent/timeline.yaml"],
        ["pin", "--cert", "/nonexistent/cert.pem"],
    ])
    func aMissingInputFileExits66(_ arguments: [String]) async {
        let r = await CommandTests.run(arguments)
        #expect(r.code == 66, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: cannot read '/nonexistent/"), "\(r.stderr)")
        #expect(r.stdout == "")
    }

    @Test func aMissingTimelineExits66() async {
        let r = await CommandTests.run("simulate", CommandTests.path("rules"), "-t", "/nonexistent/timeline.yaml")
        #expect(r.code == 66, "\(r.stderr)")
        #expect(r.stderr == "Error: cannot read '/nonexistent/timeline.yaml': no such file or permission denied\n")
    }

    @Test(arguments: [
        ["ping", "127.0.0.1", "-W", "1e300"],
        ["ping", "127.0.0.1", "--count", "0"],
        ["ping", "127.0.0.1", "-i", "soon"],
        ["portal", "--timeout", "9999999999999999d"],
        ["portal", "--url", "https://192.0.2.1/"],
        ["simulate", "rules", "-t", "timeline.yaml", "--start", "tomorrow"],
    ])
    func aBadOptionValueIsAUsageError(_ arguments: [String]) async {
        let r = await CommandTests.run(arguments)
        #expect(r.code == 64, "\(r.stderr)")
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("Error: "))
        #expect(r.stderr.contains("\nUsage: netrules \(arguments[0]) "), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("  See 'netrules \(arguments[0]) --help' for more information.\n"))
    }

    @Test func aBadOptionValueReadsLikeAnUnknownOption() async throws {
        let bad = await CommandTests.run("ping", "127.0.0.1", "-W", "1e300")
        let count = await CommandTests.run("ping", "127.0.0.1", "--count", "0")
        try FirstDayGolden.compare(bad.stderr + count.stderr, to: "ping-bad-values.stderr")
    }
}
