import Foundation
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
import NetRulesSystem
import Testing

@testable import NetRulesCLI

/// Issue 37, item 2: a daemon whose last reload failed says so in `status`, `rules` and `doctor`,
/// as text and as `failed_reload` in `--json`, from a fake daemon through a real control socket.
@Suite(.timeLimit(.minutes(1)))
struct FailedReloadViewsTests {
    /// 2026-12-01 16:11:25 UTC: 17:11:25 an hour east of UTC.
    static let since = "2026-12-01T16:11:25Z"
    static let failure = FailedReload(
        files: [FailedReload.File(path: "/etc/netrules/hello.yaml", errors: 2, since: since)], problems: [],
        since: since)
    /// An hour east of UTC, at 2026-12-01 18:00 there (17:00 UTC).
    static let times = FailedReloadText(utcOffset: { _ in 3_600 }, now: 1_796_144_400)

    func run(_ arguments: [String]) async -> CommandTests.Outcome {
        await CommandTests.run(arguments, environment: ["PATH": "/usr/bin:/bin", "COLUMNS": "1000"])
    }

    static func daemon(failure: FailedReload?) async -> FakeDaemonQueries {
        let fake = await RulesCommandTests.daemon()
        await fake.setFailedReload(failure)
        return fake
    }

    @Test func statusRulesAndDoctorShowTheFailureAsTextAndJSON() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon(failure: Self.failure))
        let expectedLine =
            "rules: /etc/netrules/hello.yaml has errors since \(FailedReloadText.system.time(Self.since)) (2); "
            + "running the previous rules"
        let member = ControlDocuments.failedReload(Self.failure)
        #expect(
            member.compact
                == #"{"files":[{"errors":2,"file":"/etc/netrules/hello.yaml","since":"2026-12-01T16:11:25Z"}],"#
                + #""problems":[],"running_previous_rules":true,"since":"2026-12-01T16:11:25Z"}"#)

        let status = await run(["status", "--socket", fixture.path])
        #expect(status.code == 0, "\(status.stderr)")
        #expect(status.stdout.split(separator: "\n").prefix(2) == ["source: daemon", Substring(expectedLine)])
        let statusJSON = try JSONValue.parse(
            Array(await run(["status", "--json", "--socket", fixture.path]).stdout.utf8))
        #expect(statusJSON.member("failed_reload") == member)

        let rules = await run(["rules", "--socket", fixture.path])
        #expect(rules.code == 0, "\(rules.stderr)")
        #expect(rules.stdout.split(separator: "\n").prefix(2) == ["source: daemon", Substring(expectedLine)])
        let rulesJSON = try JSONValue.parse(
            Array(await run(["rules", "--json", "--socket", fixture.path]).stdout.utf8))
        #expect(rulesJSON.member("failed_reload") == member)
        #expect(ControlDocuments.ruleNames(in: rulesJSON) == ["held", "fired", "off", "nobody-knows"])

        let doctor = await run(["doctor", "--socket", fixture.path, "--state-dir", fixture.directory])
        #expect(doctor.code == 1, "the reload check is an error: \(doctor.stdout)")
        #expect(
            doctor.stdout.contains(
                "error    reload: " + expectedLine.dropFirst("rules: ".count)
                    + ". Fix: run netrules check /etc/netrules/hello.yaml and fix what it reports; "
                    + "the daemon reloads when the file is saved"), "\(doctor.stdout)")
        let doctorJSON = try JSONValue.parse(
            Array(
                await run(["doctor", "--json", "--socket", fixture.path, "--state-dir", fixture.directory]).stdout.utf8)
        )
        guard case .array(let checks)? = doctorJSON.member("checks"),
            let check = checks.first(where: { $0.member("name") == .string("reload") })
        else {
            Issue.record("no reload check in \(doctorJSON.compact)")
            try await fixture.stop()
            return
        }
        #expect(check.member("status") == .string("error"))
        #expect(check.member("failed_reload") == member)
        try await fixture.stop()
    }

    @Test func aDaemonWhoseRulesLoadedAddsNothingButDoctorsOkLine() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon(failure: nil))
        let status = await run(["status", "--socket", fixture.path])
        #expect(!status.stdout.contains("rules:"), "\(status.stdout)")
        let statusJSON = try JSONValue.parse(
            Array(await run(["status", "--json", "--socket", fixture.path]).stdout.utf8))
        #expect(statusJSON.member("failed_reload") == nil)
        let rulesJSON = try JSONValue.parse(
            Array(await run(["rules", "--json", "--socket", fixture.path]).stdout.utf8))
        #expect(rulesJSON.member("failed_reload") == nil)
        let doctor = await run(["doctor", "--socket", fixture.path, "--state-dir", fixture.directory])
        #expect(doctor.stdout.contains("ok       reload: the daemon's rules loaded without errors"), "\(doctor.stdout)")
        try await fixture.stop()
    }

    /// The rules table under the line, in a fixed zone and day.
    @Test func theRulesTextPutsTheLineAboveThePreviousRules() async throws {
        let fixture = try await ControlFixture.start(await Self.daemon(failure: Self.failure))
        let json = await run(["rules", "--json", "--socket", fixture.path])
        let document = try JSONValue.parse(Array(json.stdout.dropLast().utf8))
        try FirstDayGolden.compare(
            RulesDocument.text(document, reloadTimes: Self.times) { _ in 3_600 }, to: "rules-daemon-failed-reload.text")
        try await fixture.stop()
    }

    static let texts: [(failure: FailedReload, text: String)] = [
        (failure, "/etc/netrules/hello.yaml has errors since 17:11:25 (2); running the previous rules"),
        // Another day: the date and offset too.
        (
            FailedReload(
                files: [FailedReload.File(path: "/etc/netrules/hello.yaml", errors: 1, since: "2026-11-30T08:00:00Z")],
                problems: [], since: "2026-11-30T08:00:00Z"),
            "/etc/netrules/hello.yaml has errors since 2026-11-30 09:00:00 +0100 (1); running the previous rules"
        ),
        // Each file with the time its own errors began.
        (
            FailedReload(
                files: [
                    FailedReload.File(path: "a.yaml", errors: 2, since: since),
                    FailedReload.File(path: "b.yaml", errors: 1, since: "2026-12-01T16:12:02Z"),
                ], problems: [], since: since),
            "a.yaml has errors since 17:11:25 (2), b.yaml since 17:12:02 (1); running the previous rules"
        ),
        // Errors in no file: a refused file, an unreadable rule path.
        (
            FailedReload(files: [], problems: ["cannot read '/etc/netrules': no such file or directory"], since: since),
            "not reloaded since 17:11:25: cannot read '/etc/netrules': no such file or directory; "
                + "running the previous rules"
        ),
        (
            FailedReload(
                files: [FailedReload.File(path: "a.yaml", errors: 3, since: since)],
                problems: ["refusing rule file b.yaml: it is writable by group 1000"], since: since),
            "a.yaml has errors since 17:11:25 (3); refusing rule file b.yaml: it is writable by group 1000; "
                + "running the previous rules"
        ),
    ]

    @Test(arguments: 0..<texts.count)
    func theLineNamesEachFileItsCountAndSinceWhen(index: Int) {
        let (failure, text) = Self.texts[index]
        #expect(Self.times.detail(failure) == text)
        // What the daemon sends reads back the same.
        #expect(ControlDocuments.failedReload(from: ControlDocuments.failedReload(failure)) == failure)
    }

    @Test func aPathWithControlCharactersIsEscapedInTheTextAndExactInTheJSON() {
        let failure = FailedReload(
            files: [FailedReload.File(path: "/tmp/a\u{1B}[31m.yaml", errors: 1, since: Self.since)], problems: [],
            since: Self.since)
        let member = ControlDocuments.failedReload(failure)
        let line = Self.times.line(member) ?? ""
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B }, "\(line)")
        #expect(line.hasPrefix("rules: /tmp/a" + TerminalText.escaped("\u{1B}")))
        guard case .array(let files)? = member.member("files") else {
            Issue.record("no files in \(member.compact)")
            return
        }
        #expect(files.first?.member("file") == .string("/tmp/a\u{1B}[31m.yaml"))
    }
}
