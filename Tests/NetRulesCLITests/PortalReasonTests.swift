import Foundation
import NetRulesCore
import NetRulesTesting
import Testing

/// Issue 37, item 3: `netrules portal --rules FILE` classifies with that file's `connectivity:`
/// probes and timeout, and says why the deciding answer counts (the status, the page, the
/// redirect), against a loopback HTTP server. The `why:` lines are asserted byte for byte.
@Suite(.timeLimit(.minutes(1)))
struct PortalReasonTests {
    /// A rule file whose one probe is `path` on `server`, expecting `status` and `body`.
    static func ruleFile(
        _ server: TestHTTPServer, _ path: String, status: Int, body: String?, timeout: String = "2s"
    ) throws -> String {
        let directory = ControlFixture.makeTemporaryDirectory()
        let file = directory + "/portal.yaml"
        let expected = body.map { ", body: \($0)" } ?? ""
        try """
        version: 1
        connectivity:
          probes:
            - { url: "\(server.url(path))", status: \(status)\(expected) }
          timeout: \(timeout)
        rules: []

        """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func why(_ outcome: CommandTests.Outcome) -> String? {
        outcome.stdout.split(separator: "\n").first { $0.hasPrefix("why: ") }.map(String.init)
    }

    @Test func theRuleFilesProbeDecidesAndSaysWhy() async throws {
        let server = try TestHTTPServer { request in
            switch request.path {
            case "/welcome": .response(status: 200, body: Array("<html><body> Welcome </body></html>".utf8))
            case "/login": .response(status: 200, body: Array("<html>Please log in</html>".utf8))
            case "/moved": .response(status: 302, headers: [("Location", "http://127.0.0.1:9/login")])
            case "/auth": .response(status: 511, body: Array("log in".utf8))
            case "/ok": .response(status: 200, body: Array("Success".utf8))
            default: .response(status: 404)
            }
        }
        defer { server.stop() }
        // The file expects 'Welcome', which the default probes (expecting 'Success') would call a portal.
        let online = await CommandTests.run(
            "portal", "--rules", try Self.ruleFile(server, "/welcome", status: 200, body: "Welcome"))
        #expect(online.code == 0, "\(online.stdout)\(online.stderr)")
        #expect(online.stdout.hasPrefix("connectivity: online\n"))
        #expect(
            why(online)
                == "why: \(server.url("/welcome")) answered 200 with the page 'Welcome': the answer that means online")

        let page = await CommandTests.run(
            "portal", "--rules", try Self.ruleFile(server, "/login", status: 200, body: "Welcome"))
        #expect(page.code == 2)
        #expect(
            why(page)
                == "why: \(server.url("/login")) answered 200 with another page (26 bytes) than 'Welcome': a portal's page"
        )

        let redirect = await CommandTests.run(
            "portal", "--rules", try Self.ruleFile(server, "/moved", status: 204, body: nil))
        #expect(redirect.code == 2)
        #expect(
            why(redirect)
                == "why: \(server.url("/moved")) answered a redirect (302) to http://127.0.0.1:9/login: a portal's; "
                + "online is 204 with an empty body")

        let status = await CommandTests.run(
            "portal", "--rules", try Self.ruleFile(server, "/auth", status: 204, body: nil))
        #expect(status.code == 2)
        #expect(
            why(status) == "why: \(server.url("/auth")) answered 511 Network Authentication Required: a portal's status"
        )

        let other = await CommandTests.run(
            "portal", "--rules", try Self.ruleFile(server, "/ok", status: 204, body: nil))
        #expect(other.code == 2)
        #expect(
            why(other)
                == "why: \(server.url("/ok")) answered 200 where online is 204 with an empty body: a portal's answer")

        let json = await CommandTests.run(
            "portal", "--json", "--rules", try Self.ruleFile(server, "/moved", status: 204, body: nil))
        let document = try JSONValue.parse(Array(json.stdout.utf8))
        #expect(document.member("why") == .string(String(try #require(why(redirect)).dropFirst(5))))
        #expect(
            document.member("decided_by")?.member("reason")
                == .string("a redirect (302) to http://127.0.0.1:9/login: a portal's; online is 204 with an empty body")
        )
    }

    @Test func theRuleFilesTimeoutApplies() async throws {
        let server = try TestHTTPServer { _ in .hang }
        defer { server.stop() }
        let started = ContinuousClock.now
        let outcome = await CommandTests.run(
            "portal", "--rules", try Self.ruleFile(server, "/", status: 204, body: nil, timeout: "300ms"))
        #expect(ContinuousClock.now - started < .seconds(3), "the file's 300ms, not the default 5 s")
        #expect(outcome.code == 3)
        #expect(outcome.stdout.hasPrefix("connectivity: offline\n"))
        #expect(why(outcome) == "why: no probe answered conclusively (each probe's line says what it got)")
    }

    @Test func rulesAndURLAreExclusiveAndABrokenFileIsRefused() async throws {
        let both = await CommandTests.run("portal", "--rules", "/nonexistent.yaml", "--url", "http://127.0.0.1:9/")
        #expect(both.code == 64)
        #expect(both.stderr.contains("give either --url or --rules: the rule files name their own probes"))

        let directory = ControlFixture.makeTemporaryDirectory()
        let file = directory + "/broken.yaml"
        try "version: 1\nconnectivity: { probes: [ { url: \"https://example.invalid/\" } ] }\nrules: []\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let broken = await CommandTests.run("portal", "--rules", file)
        #expect(broken.code == 65)
        #expect(broken.stderr.contains("error: a portal probe URL must be plain http://"), "\(broken.stderr)")
    }
}
