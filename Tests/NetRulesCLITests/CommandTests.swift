import Foundation
import Glibc
import NetRulesCLI
import NetRulesTesting
import Testing

/// The commands, run in-process through `NetRulesCommandLine.run` (STYLE §19).
@Suite(.timeLimit(.minutes(5)))
struct CommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Outcome {
        var code: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: String...) async -> Outcome {
        await run(arguments)
    }

    /// Runs the command line as the daemon's unit would have it: the shipped rules read
    /// `{{env.CHECKIN_TOKEN}}`, which `check` and `simulate` warn about when it is unset.
    static func run(_ arguments: [String], path: String = "/usr/bin:/bin") async -> Outcome {
        await run(arguments, environment: ["COLUMNS": "80", "PATH": path, "CHECKIN_TOKEN": "t0ken"])
    }

    /// Runs the command line with exactly `environment`, capturing both outputs.
    static func run(_ arguments: [String], environment: [String: String]) async -> Outcome {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: arguments, stdout: out, stderr: err, environment: environment, loop: .testLoop)
        return Outcome(code: code, stdout: out.text, stderr: err.text)
    }

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    @Test func checkAcceptsTheShippedRules() async {
        let r = await Self.run("check", Self.path("rules"))
        #expect(r.code == 0)
        #expect(r.stdout == "ok: 4 rules\n")
        #expect(r.stderr == "")
    }

    @Test func portalRefusesAURLItCannotProbe() async {
        let r = await Self.run("portal", "--url", "https://192.0.2.1/hotspot-detect.html")
        #expect(r.code == 64)
        #expect(r.stdout == "")
        #expect(r.stderr.contains("--url 'https://192.0.2.1/hotspot-detect.html': only http:// URLs can be probed"))
    }

    @Test func checkRejectsABrokenFileWithExit65() async throws {
        let file = Self.path("Tests/NetRulesConfigTests/Golden/unknown-keys.yaml")
        let r = await Self.run("check", file)
        #expect(r.code == 65)
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("\(file):3:5: error: the rule has no 'when' condition\n"))
        #expect(r.stderr.hasSuffix("7 errors found\n"))
    }

    @Test func checkJSONIsOneDocument() async throws {
        let r = await Self.run("check", "--json", Self.path("Tests/NetRulesConfigTests/Golden/yaml-errors.yaml"))
        #expect(r.code == 65)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["ok"] as? Bool == false)
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.first?["line"] as? Int == 4)
        #expect(diagnostics.first?["column"] as? Int == 22)
    }

    @Test func checkOfAMissingFileExits66() async {
        let r = await Self.run("check", "/nonexistent/rules.yaml")
        #expect(r.code == 66)
        #expect(r.stderr == "Error: cannot read '/nonexistent/rules.yaml': no such file or directory\n")
    }

    @Test func simulateJSONLinesMatchTheContract() async {
        let r = await Self.run(
            "simulate", Self.path("rules/office-check-in.yaml"), "--timeline",
            Self.path("examples/timelines/office-day.yaml"), "--json")
        #expect(r.code == 0)
        // Each firing line also carries the actions as they would run (issue 12), secrets masked.
        #expect(
            r.stdout.hasPrefix(
                "{\"version\":1,\"at\":31840.0,\"rule\":\"office-check-in\",\"edge\":\"enter\",\"actions\":[\"webhook\",\"write\"],"
                    + "\"rendered\":[{\"webhook\":{\"method\":\"POST\",\"url\":\"https://hr.example.com/check-in\","
                    + "\"headers\":{\"Authorization\":\"Bearer <secret>\""))
        #expect(r.stdout.split(separator: "\n").count == 1)
    }

    @Test func simulateHumanOutput() async {
        let r = await Self.run(
            "simulate", Self.path("rules/vpn-away-from-home.yaml"), "-t",
            Self.path("examples/timelines/leaving-home.yaml"))
        #expect(r.code == 0)
        #expect(
            r.stdout == """
                30m5s  Mon 00:30:05  vpn-away-from-home  enter  run
                    run: /usr/local/bin/vpn-toggle
                3h5s   Mon 03:00:05  vpn-away-from-home  exit   run
                    run: /usr/local/bin/vpn-toggle
                2 firings

                """)
    }

    @Test func simulateRejectsABrokenTimelineWith65() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nr-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let timeline = dir.appendingPathComponent("t.yaml")
        try "- at: soon\n  facts: { ssid: A }\n".write(to: timeline, atomically: true, encoding: .utf8)
        let r = await Self.run("simulate", Self.path("rules"), "--timeline", timeline.path)
        #expect(r.code == 65)
        #expect(r.stderr.hasPrefix("\(timeline.path):1:7: error: 'soon' is not a duration\n- at: soon\n      ^\n"))
    }

    @Test func anOverflowingTimelineTimeIsAnErrorNotACrash() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nr-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let timeline = dir.appendingPathComponent("t.yaml")
        try "- at: 9999999999999999d\n  facts: { ssid: A }\n".write(to: timeline, atomically: true, encoding: .utf8)
        let r = await Self.run("simulate", Self.path("rules"), "--timeline", timeline.path)
        #expect(r.code == 65)
        #expect(r.stderr.hasPrefix("\(timeline.path):1:7: error: '9999999999999999d' is longer than netrules accepts"))
    }

    @Test(arguments: [["-W", "1e300"], ["-i", "1e300"], ["-W", "9999999999999999d"]])
    func pingRefusesAnOverflowingTimeInsteadOfCrashing(option: [String]) async {
        let r = await Self.run(["ping", "127.0.0.1", "-c", "1"] + option)
        #expect(r.code == 64)
        #expect(r.stderr.contains("longer than 100 years"), "\(r.stderr)")
    }

    @Test func anEmptyRulesDirectoryIsAnErrorNotZeroRules() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nr-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = await Self.run("check", dir.path)
        #expect(r.code == 66)
        #expect(r.stdout == "")
        #expect(r.stderr.contains("holds no rule files"), "\(r.stderr)")
    }

    static let canRunAsNobody =
        geteuid() == 0 && access("/usr/sbin/runuser", X_OK) == 0 && access(path(".build/debug/netrules"), X_OK) == 0

    /// Root reads any directory: run the built binary as nobody against one only root may read.
    @Test(
        .enabled(
            if: canRunAsNobody,
            "SKIPPED: needs root (to switch to nobody), runuser and a built .build/debug/netrules"))
    func anUnreadableRulesDirectoryIsAnErrorNotZeroRules() async throws {
        let binary = Self.path(".build/debug/netrules")
        let dir = "/tmp/nr-unreadable-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "version: 1\nrules: []\n".write(toFile: dir + "/a.yaml", atomically: true, encoding: .utf8)
        chmod(dir, 0o700)
        // system(3) waits for its own child by pid; Foundation's Process can miss the exit of a
        // child in a process whose signal handling other tests have changed.
        let errorFile = dir + ".stderr"
        defer { unlink(errorFile) }
        let status = system("/usr/sbin/runuser -u nobody -- '\(binary)' check '\(dir)' 2> '\(errorFile)' > /dev/null")
        let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        #expect((status >> 8) & 0xFF == 66, "\(stderr)")
        #expect(stderr.contains("cannot read the rules directory"), "\(stderr)")
    }

    @Test func usageErrorsExit64() async {
        let r = await Self.run("simulate", Self.path("rules"))
        #expect(r.code == 64)
        #expect(r.stderr.hasPrefix("Error: Missing expected argument '--timeline <file>'\n"))
        let unknown = await Self.run("frobnicate")
        #expect(unknown.code == 64)
        #expect(unknown.stderr.contains("Unknown subcommand 'frobnicate'"))
    }

    @Test func helpAndVersion() async {
        let help = await Self.run("--help")
        let helpCommand = await Self.run("help")
        #expect(help.code == 0 && help.stdout.hasPrefix("OVERVIEW: Run actions when the network changes.\n"))
        #expect(help.stdout == helpCommand.stdout)
        let sub = await Self.run("help", "simulate")
        let subFlag = await Self.run("simulate", "-h")
        #expect(sub.stdout == subFlag.stdout)
        #expect(sub.stdout.contains("USAGE: netrules simulate <rules> ... --timeline <file> [--json]"))
        let version = await Self.run("--version")
        #expect(version.stdout == "\(NetRulesCommandLine.version)\n")
    }

    @Test func schemaIsJSONAndNamesEveryConditionKind() async throws {
        let r = await Self.run("schema")
        #expect(r.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let defs = try #require(object["$defs"] as? [String: Any])
        let condition = try #require(defs["condition"] as? [String: Any])
        let kinds = try #require(condition["properties"] as? [String: Any])
        #expect(
            Set(kinds.keys) == [
                "ssid", "bssid", "portal", "connectivity", "reachable", "unreachable", "interface", "gateway",
                "address",
                "network", "signal", "fact", "time", "place", "all", "any", "not", "if_unknown",
            ])
    }

    /// One end-to-end run of the built binary: stdout, stderr and the exit code as a user sees them.
    @Test func builtBinaryRunsCheck() throws {
        let binary = Self.root.appendingPathComponent(".build/debug/netrules")
        try #require(
            FileManager.default.isExecutableFile(atPath: binary.path),
            "build the netrules product first (swift build --build-tests builds it)")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["check", Self.path("Tests/NetRulesConfigTests/Golden/yaml11-surprises.yaml")]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 65)
        #expect(stdout == "")
        #expect(stderr.contains("yaml11-surprises.yaml:6:58: error: 'on' is not a Boolean here\n"))
    }
}

/// The network commands as a user runs them (loopback only).
@Suite(.timeLimit(.minutes(1)))
struct NetworkCommandTests {
    static let rootReason: Comment =
        "SKIPPED: ICMP needs root here (net.ipv4.ping_group_range is '1 0'); CI runs as root"

    @Test(.enabled(if: geteuid() == 0, NetworkCommandTests.rootReason))
    func pingPrintsOneLinePerReplyAndASummary() async throws {
        let r = await CommandTests.run("ping", "127.0.0.1", "-c", "2", "-i", "0.05", "-W", "0.5")
        #expect(r.code == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 6, "\(r.stdout)")
        #expect(lines[0].hasPrefix("reply from 127.0.0.1: icmp_seq=1 time="))
        #expect(lines[2] == "--- 127.0.0.1 ping statistics ---")
        #expect(lines[3] == "2 packets transmitted, 2 received, 0% packet loss")
        #expect(lines[5] == "")
    }

    @Test(.enabled(if: geteuid() == 0, NetworkCommandTests.rootReason))
    func pingJSONIsJSONLines() async throws {
        let r = await CommandTests.run("ping", "127.0.0.1", "-c", "1", "--json")
        #expect(r.code == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["version"] as? Int == 1)
        }
    }
}

/// Observer and action plugins are found when the rules load.
@Suite(.timeLimit(.minutes(1)))
struct PluginLookupTests {
    static func rules(_ body: String) throws -> (directory: URL, file: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("rules.yaml")
        try body.write(to: file, atomically: true, encoding: .utf8)
        return (directory, file.path)
    }

    @Test func observerPluginsAreFoundInThePluginDirectories() async throws {
        let plugins = CommandTests.path("examples/plugins")
        let (directory, file) = try Self.rules(
            """
            version: 1
            plugins: [\(plugins)]
            observers: [vpn]
            rules:
              - { name: vpn-up, when: { fact: { key: vpn.connected, equals: "true" } }, do: [ { run: "true" } ] }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await CommandTests.run("check", file)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "ok: 1 rule\n")
    }

    @Test func aMissingObserverPluginIsALoadError() async throws {
        let (directory, file) = try Self.rules(
            """
            version: 1
            observers: [no-such-observer]
            rules:
              - { name: r, when: { ssid: A }, do: [ { run: "true" } ] }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await CommandTests.run("check", file)
        #expect(r.code == 65)
        #expect(
            r.stderr.hasPrefix(
                "\(file):2:13: error: no observer plugin 'no-such-observer': 'netrules-observer-no-such-observer' was not found in the plugin directories or PATH\n"
            ))
    }
}
