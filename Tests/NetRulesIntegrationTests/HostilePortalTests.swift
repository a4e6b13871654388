import Foundation
import NetRulesCore
import NetRulesTesting
import Testing

/// A captive portal in the peer namespace redirects to a URL built to run commands in every way a
/// shell could be tricked: `$(…)`, backticks, `;`, `|`, `&&`, both quotes, `\`, `${IFS}`. The real
/// daemon reports it as `portal.url` (percent-encoded where RFC 3986 wants it: `` ` ``, `"`, `|`, `\`,
/// `{`, `}`) and runs it through each quoting context of `run:`, the issue's own
/// `echo "… {{portal.url}}"` and a `write`: every output is that URL byte-exact and no marker file
/// appears.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct HostilePortalTests {
    @Test func aHostilePortalURLRunsNothingInAnyContext() async throws {
        try await Testbed.run(networkUp: false) { testbed in
            let marker = testbed.path("pwned")
            let attack = [
                "$(touch${IFS}\(marker))", "`touch${IFS}\(marker)`", "\";touch${IFS}\(marker);\"",
                "';touch${IFS}\(marker);'", "|touch${IFS}\(marker)", "&&touch${IFS}\(marker)", "\\",
                "--output=\(marker)",
            ].joined(separator: "&x=")
            let hostile = "http://\(Testbed.peerAddress)/login?next=\(attack)"
            let portal = try PortalEndpoint(in: testbed, loggedIn: false, redirect: hostile)
            let out = testbed.path("out")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let rules = try testbed.write(
                """
                version: 1
                \(portal.connectivityYAML)
                rules:
                  - name: portal
                    when: { portal: detected }
                    do:
                      - run: printf '%s' -- {{portal.url}} > \(out)/unquoted
                        continue_on_error: true
                      - run: printf '%s' "{{portal.url}}" > \(out)/double
                        continue_on_error: true
                      - run: printf '%s' '{{portal.url}}' > \(out)/single
                        continue_on_error: true
                      - run: echo "captive portal at {{portal.url}}" > \(out)/echo
                        continue_on_error: true
                      - write: { path: \(out)/written, content: "{{portal.url}}" }

                """, to: "portal.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try testbed.bringNetworkUp()
            try await eventually("the write action to run") { FileManager.default.fileExists(atPath: out + "/written") }
            try await eventually("every run action to finish") {
                ["unquoted", "double", "single", "echo"].allSatisfy {
                    FileManager.default.fileExists(atPath: out + "/" + $0)
                }
            }
            let written = try #require(FileManager.default.contents(atPath: out + "/written"))
            let reported = try ReportedURL.checked(hostile).get()
            #expect(reported.contains("$(touch$%7BIFS%7D") && reported.contains("%60touch") && !reported.contains("|"))
            #expect(String(decoding: written, as: UTF8.self) == reported, "the daemon's portal.url")
            for name in ["double", "single"] {
                #expect(FileManager.default.contents(atPath: out + "/" + name) == written, "\(name)")
            }
            // printf '%s' -- VALUE prints "--" as its first argument, then the value.
            #expect(FileManager.default.contents(atPath: out + "/unquoted") == Data("--".utf8) + written)
            // dash's echo interprets backslash escapes in what it prints; the shell ran nothing.
            #expect(
                String(decoding: FileManager.default.contents(atPath: out + "/echo") ?? Data(), as: UTF8.self)
                    .hasPrefix("captive portal at http://"))
            #expect(!FileManager.default.fileExists(atPath: marker), "the portal URL ran a command as root")
            #expect(try await testbed.stop(daemon) == .exited(0))
            _ = portal
        }
    }

    /// The shipped captive-portal rule's shape (a status file and `$NETRULES_PORTAL_URL`) behind a
    /// portal whose `Location` carries terminal escapes, CR and NUL: `portal` is detected, but the
    /// URL is refused, so neither the file nor the environment holds a single control byte.
    @Test func aLocationWithControlCharactersIsNoPortalURL() async throws {
        try await Testbed.run(networkUp: false) { testbed in
            let hostile = "http://\(Testbed.peerAddress)/\u{1B}]0;owned\u{7}\u{1B}[2J\r\u{8}\u{0}login"
            let portal = try PortalEndpoint(in: testbed, loggedIn: false, redirect: hostile)
            let out = testbed.path("out")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let rules = try testbed.write(
                """
                version: 1
                \(portal.connectivityYAML)
                rules:
                  - name: captive-portal-notice
                    when: { portal: detected }
                    do:
                      - write: { path: \(out)/status, content: "{{edge}} [{{portal.url}}]\\n" }
                      - run: printf '%s' "${NETRULES_PORTAL_URL-unset}" > \(out)/env

                """, to: "portal.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try testbed.bringNetworkUp()
            try await eventually("the run action to finish") { FileManager.default.fileExists(atPath: out + "/env") }
            let status = String(
                decoding: FileManager.default.contents(atPath: out + "/status") ?? Data(), as: UTF8.self)
            #expect(status == "enter []\n")
            let environment = FileManager.default.contents(atPath: out + "/env") ?? Data()
            #expect(!environment.contains { $0 < 0x20 || $0 == 0x7F }, "\(Array(environment))")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
