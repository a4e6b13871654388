import Foundation
import Glibc
import Testing

/// `simulate --execute all` runs the real actions: the hostile SSID corpus (the values YAML can
/// spell) through each quoting context of `run:` and the issue's `notify-send 'Joined {{ssid}}'`
/// shape arrives byte-exact, and nothing the SSIDs spell is executed.
@Suite(.timeLimit(.minutes(1)))
struct SimulateHostileTests {
    static let values: [String] = [
        "$(touch pwned)", "`touch pwned`", "'; touch pwned; '", "\"; touch pwned; \"", "a\ntouch pwned",
        "x; touch pwned", "x | touch pwned", "x && touch pwned", "${IFS}touch${IFS}pwned", "$HOME", "\\", "'", "\"",
        "-n", "--output=pwned", "*", "~", "tab\there", "%s%n", "> pwned", "<(touch pwned)", "é café ☕",
        "$(touch${IFS}pwned)`touch pwned`';\"|&",
    ]

    /// A YAML double-quoted scalar for `text`.
    static func yamlQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func hostileSSIDsRunNothingUnderSimulateExecute() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dir = directory.path
        let commands = [
            ("unquoted", "printf '%s\\000' {{ssid}} >> unquoted"),
            ("double", "printf '%s\\000' \"{{ssid}}\" >> double"),
            ("single", "printf '%s\\000' '{{ssid}}' >> single"),
            ("issue", "notify() { printf '%s\\000' \"$1\" >> issue; }; notify 'Joined {{ssid}}'"),
        ]
        let actions = commands.map { "      - run: { command: \(Self.yamlQuoted($0.1)), cwd: \(dir) }" }
            .joined(separator: "\n")
        let rules = directory.appendingPathComponent("rules.yaml")
        try """
        version: 1
        rules:
          - name: hostile
            when: { ssid: { matches: "." } }
            do:
        \(actions)

        """.write(to: rules, atomically: true, encoding: .utf8)
        var timeline = ""
        for (i, value) in Self.values.enumerated() {
            timeline += "- at: \(2 * i)m\n  facts: { ssid: \(Self.yamlQuoted(value)) }\n"
            timeline += "- at: \(2 * i + 1)m\n  facts: { ssid: null }\n"
        }
        let timelineFile = directory.appendingPathComponent("timeline.yaml")
        try timeline.write(to: timelineFile, atomically: true, encoding: .utf8)

        let r = await CommandTests.run(
            "simulate", rules.path, "--timeline", timelineFile.path, "--execute", "all")
        #expect(r.code == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/pwned"), "an SSID ran a command")
        func records(_ name: String) -> [String] {
            let data = FileManager.default.contents(atPath: dir + "/" + name) ?? Data()
            return String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false)
                .dropLast().map(String.init)
        }
        for name in ["unquoted", "double", "single"] {
            #expect(records(name) == Self.values, "\(name)")
        }
        #expect(records("issue") == Self.values.map { "Joined " + $0 })
    }
}

/// A timeline key no rule reads and netrules does not know is an error, not "0 firings" (issue 12).
@Suite(.timeLimit(.minutes(1)))
struct SimulateTimelineKeyTests {
    @Test func aMisspeltTimelineKeyIsAnErrorWithTheFix() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-tl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let timeline = directory.appendingPathComponent("t.yaml")
        try "- at: 0s\n  facts: { sssid: XF-WORLD }\n".write(to: timeline, atomically: true, encoding: .utf8)
        let r = await CommandTests.run(
            "simulate", CommandTests.path("rules/office-check-in.yaml"), "--timeline", timeline.path)
        #expect(r.code == 65)
        #expect(
            r.stderr.contains("2:12: error: 'sssid' is not a fact netrules knows, and no rule reads it"), "\(r.stderr)")
        #expect(r.stderr.contains("did you mean 'ssid'?"))
    }
}

/// simulate's calendar and trace (issue 12, items 1 and 5), and a hint that names an argument.
@Suite(.timeLimit(.minutes(1)))
struct SimulateCalendarTests {
    @Test func theOfficeWeekChecksInOnceEachWorkingDayAndTracesTheDroppedSecondArrival() async {
        let r = await CommandTests.run(
            "simulate", CommandTests.path("rules/office-check-in.yaml"), "--timeline",
            CommandTests.path("examples/timelines/office-week.yaml"), "--start", "2026-12-07T00:00:00Z", "--trace",
            "--json")
        #expect(r.code == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        let firings = lines.filter { $0.contains(#""rendered""#) }
        #expect(firings.count == 5)
        #expect(lines.contains { $0.contains(#""event":"dropped","reason":"once_per""#) })
        #expect(lines.contains { $0.contains(#""event":"held""#) })
        // {{time}} is the simulated wall clock: Monday 08:55:10.
        #expect(firings.first?.contains("2026-12-07T08:55:10Z") == true, "\(firings.first ?? "")")
    }

    @Test func aStartThatIsNotRFC3339IsAUsageError() async {
        let r = await CommandTests.run(
            "simulate", CommandTests.path("rules"), "--timeline",
            CommandTests.path("examples/timelines/office-day.yaml"),
            "--start", "monday")
        #expect(r.code == 64)
    }

    @Test func anArgumentWrittenAsAnOptionSaysSo() async {
        let r = await CommandTests.run("explain", "--rule", "office")
        #expect(r.code == 64)
        #expect(r.stderr.contains("'rule' is an argument, not an option"), "\(r.stderr)")
        #expect(!r.stderr.contains("--help'?"))
    }
}
