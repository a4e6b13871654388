import Foundation
import NetRulesCLI
import NetRulesCore
import NetRulesTesting
import Testing

/// Issue 37, item 2: a rule file saved broken under a running daemon is reloaded on its own and
/// refused (the previous rules keep running); `status`, `rules` and `doctor`, as text and as
/// `--json`, then name the file, its error count and since when, until a save that loads.
@Suite(.timeLimit(.minutes(3)), .serialized, .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct FailedReloadTests {
    static let good = "version: 1\nrules:\n  - { name: hello, when: { ssid: A }, do: [ { run: \"true\" } ] }\n"
    /// Two unknown keys (`sid`): two errors, in two rules.
    static let broken =
        good + "  - { name: two, when: { sid: B }, do: [ { run: \"true\" } ] }\n"
        + "  - { name: three, when: { sid: C }, do: [ { run: \"true\" } ] }\n"
    static let fixed = good + "  - { name: two, when: { ssid: B }, do: [ { run: \"true\" } ] }\n"

    /// One command run in this process against the daemon's socket: exit code, stdout, stderr.
    static func netrules(_ arguments: [String]) async -> (code: Int32, out: String, err: String) {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: arguments, stdout: out, stderr: err, environment: ["PATH": "/usr/bin:/bin", "COLUMNS": "1000"],
            loop: .testLoop)
        return (code, out.text, err.text)
    }

    static func parse(_ json: String) throws -> JSONValue { try JSONValue.parse(Array(json.utf8)) }

    @Test func aBrokenSaveIsShownByStatusRulesAndDoctorUntilAGoodOneLoads() async throws {
        try await Testbed.run { testbed in
            let file = try testbed.write(Self.good, to: "hello.yaml")
            let daemon = try await testbed.startDaemon(rules: [file])
            let socket = testbed.path("control.sock")
            let doctor = ["doctor", "--socket", socket, "--state-dir", testbed.path("state")]
            let before = Int(Date().timeIntervalSince1970)

            // Saved broken: no SIGHUP, no `netrules reload`; the file watcher reloads it.
            try testbed.write(Self.broken, to: "hello.yaml")
            try await eventually("the automatic reload to fail (log: \(testbed.logTail()))") {
                testbed.log.contains("reload failed: keeping the 1 rules already running")
            }
            #expect(daemon.termination == nil, "the daemon exited on a broken reload")

            // The text names the file, the time (local, to the second) and the count.
            let line = try Regex(
                "rules: \(NSRegularExpression.escapedPattern(for: file)) has errors since "
                    + "[0-9]{2}:[0-9]{2}:[0-9]{2} \\(2\\); running the previous rules")
            let status = await Self.netrules(["status", "--socket", socket])
            #expect(status.code == 0, "\(status.err)")
            #expect(status.out.contains(line), "\(status.out)")
            let rules = await Self.netrules(["rules", "--socket", socket])
            #expect(rules.code == 0, "\(rules.err)")
            #expect(rules.out.contains(line), "\(rules.out)")
            #expect(rules.out.contains("hello"), "the previous rule is listed: \(rules.out)")
            let report = await Self.netrules(doctor)
            #expect(report.code == 1, "a reload check in error makes doctor exit 1: \(report.out)")
            let doctorLine = try Regex(
                "error +reload: \(NSRegularExpression.escapedPattern(for: file)) has errors since "
                    + "[0-9]{2}:[0-9]{2}:[0-9]{2} \\(2\\); running the previous rules\\. Fix: ")
            #expect(report.out.contains(doctorLine), "\(report.out)")

            // The JSON: the same object in each command's document.
            func expectFailure(_ failure: JSONValue?, _ what: String) {
                guard let failure, case .array(let files)? = failure.member("files") else {
                    Issue.record("no failed_reload.files in \(what)")
                    return
                }
                #expect(files.count == 1, "\(what)")
                #expect(files.first?.member("file") == .string(file), "\(what)")
                #expect(files.first?.member("errors") == .number(2), "\(what)")
                #expect(failure.member("problems") == .array([]), "\(what)")
                #expect(failure.member("running_previous_rules") == .bool(true), "\(what)")
                for since in [failure.member("since"), files.first?.member("since")] {
                    let seconds = since?.stringValue.flatMap { LocalTime.unixTime(rfc3339: $0) }
                    #expect(
                        seconds.map { $0 >= before - 1 && $0 <= Int64(Date().timeIntervalSince1970) + 1 } == true,
                        "since is not an RFC 3339 time of the failure: \(what)")
                }
            }
            let statusJSON = await Self.netrules(["status", "--json", "--socket", socket])
            expectFailure(try Self.parse(statusJSON.out).member("failed_reload"), statusJSON.out)
            let rulesJSON = await Self.netrules(["rules", "--json", "--socket", socket])
            let rulesDocument = try Self.parse(rulesJSON.out)
            expectFailure(rulesDocument.member("failed_reload"), rulesJSON.out)
            #expect(rulesDocument.member("source") == .string("daemon"))
            let doctorJSON = await Self.netrules(doctor + ["--json"])
            guard case .array(let checks)? = try Self.parse(doctorJSON.out).member("checks"),
                let reload = checks.first(where: { $0.member("name") == .string("reload") })
            else {
                Issue.record("no reload check in \(doctorJSON.out)")
                return
            }
            #expect(reload.member("status") == .string("error"))
            expectFailure(reload.member("failed_reload"), doctorJSON.out)

            // The previous rules still run.
            #expect(rulesDocument.member("rules").map { ControlDocumentsNames.names(in: $0) } == ["hello"])

            // Fixed: the reload loads, and every line and member is gone.
            try testbed.write(Self.fixed, to: "hello.yaml")
            try await eventually("the fixed file to load (log: \(testbed.logTail()))") {
                testbed.log.contains("reloaded: 2 rules")
            }
            let healthy = await Self.netrules(["status", "--socket", socket])
            #expect(!healthy.out.contains("has errors"), "\(healthy.out)")
            let healthyRules = await Self.netrules(["rules", "--socket", socket])
            #expect(!healthyRules.out.contains("has errors"), "\(healthyRules.out)")
            #expect(healthyRules.out.contains("two"), "\(healthyRules.out)")
            #expect(
                try Self.parse(await Self.netrules(["status", "--json", "--socket", socket]).out)
                    .member("failed_reload") == nil)
            #expect(
                try Self.parse(await Self.netrules(["rules", "--json", "--socket", socket]).out)
                    .member("failed_reload") == nil)
            let healthyDoctor = await Self.netrules(doctor)
            #expect(
                healthyDoctor.out.contains("reload: the daemon's rules loaded without errors"), "\(healthyDoctor.out)")
            #expect(!healthyDoctor.out.contains("has errors"), "\(healthyDoctor.out)")

            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}

/// The rule names of a `rules` document's `rules` array.
private enum ControlDocumentsNames {
    static func names(in rules: JSONValue) -> [String] {
        guard case .array(let items) = rules else { return [] }
        return items.compactMap { $0.member("name")?.stringValue }
    }
}
