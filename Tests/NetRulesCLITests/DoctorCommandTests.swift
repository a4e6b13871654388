import Foundation
import Glibc
import NetRulesCLI
import NetRulesTesting
import Testing

/// `netrules doctor` (issue 11, item 5), against a mocked NetworkManager where one is needed.
@Suite(.timeLimit(.minutes(3)))
struct DoctorCommandTests {
    static func rules(_ body: String) throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent("rules.yaml")
        try body.write(to: file, atomically: true, encoding: .utf8)
        return (directory, file.path)
    }

    static func checks(_ stdout: String) throws -> [String: [String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        let checks = try #require(document["checks"] as? [[String: Any]])
        for check in checks {
            #expect(["ok", "warning", "error"].contains(check["status"] as? String ?? ""))
            #expect(check["detail"] is String)
            #expect(check.keys.contains("fix"))
        }
        return Dictionary(checks.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    static func run(_ arguments: [String], bus: String) async -> CommandTests.Outcome {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: arguments, stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": bus], loop: .testLoop)
        return CommandTests.Outcome(code: code, stdout: out.text, stderr: err.text)
    }

    @Test func withoutNetworkManagerTheRulesNetworkManagerFactsAreErrors() async throws {
        let (directory, file) = try Self.rules(
            "version: 1\nrules:\n  - { name: r, when: { fact: { key: connection, equals: Office } }, do: [ { run: x } ] }\n"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await Self.run(
            ["doctor", file, "--json", "--state-dir", directory.path], bus: "unix:path=/nonexistent/bus")
        #expect(r.code == 1)
        let checks = try Self.checks(r.stdout)
        #expect(checks["networkmanager"]?["status"] as? String == "warning")
        #expect(checks["fact connection"]?["status"] as? String == "error")
        #expect(checks["state-dir"]?["status"] as? String == "ok")
    }

    @Test func aSubscribedFactHasTheBrokerAsItsSourceAndAnotherDottedOneNone() async throws {
        let (directory, file) = try Self.rules(
            """
            version: 1
            mqtt: { broker: "unix:/nonexistent/mqtt.sock", subscribe: { door: office/door } }
            rules:
              - { name: r, when: { mqtt.door: open }, do: [ { run: x } ] }
              - { name: s, when: { fact: { key: x.nobody, equals: z } }, do: [ { run: x } ] }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await Self.run(
            ["doctor", file, "--json", "--state-dir", directory.path], bus: "unix:path=/nonexistent/bus")
        let checks = try Self.checks(r.stdout)
        #expect(checks["fact mqtt.door"] == nil, "\(checks)")
        #expect(checks["fact x.nobody"]?["status"] as? String == "error", "\(checks)")
    }

    @Test(.enabled(if: NetworkManagerMock.isAvailable, "\(NetworkManagerMock.unavailableReason)"))
    func withNetworkManagerOnTheBusItServesWiFiAndConnections() async throws {
        let mock = try NetworkManagerMock()
        defer { mock.stop() }
        let (directory, file) = try Self.rules(
            """
            version: 1
            rules:
              - { name: r, when: { all: [ { ssid: Office }, { fact: { key: vpn, equals: Work } } ] }, do: [ { run: x } ] }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await Self.run(["doctor", file, "--json", "--state-dir", directory.path], bus: mock.address)
        let checks = try Self.checks(r.stdout)
        #expect(checks["networkmanager"]?["status"] as? String == "ok")
        if checks["nl80211"]?["status"] as? String == "warning" {
            #expect((checks["wifi-source"]?["detail"] as? String)?.contains("NetworkManager") == true)
        }
        #expect(checks["facts"]?["status"] as? String == "ok", "\(checks)")
        #expect(r.code == 0, "\(r.stdout)")
    }
}

/// Issue 11's "done when": `DBUS_SYSTEM_BUS_ADDRESS=<mock bus> netrules status --json` shows
/// `ssid`, `bssid` and `connection` from the mock on a kernel without nl80211 (the built binary,
/// no daemon, as a user would run it).
@Suite(.timeLimit(.minutes(3)))
struct StatusFromNetworkManagerTests {
    static let binary = CommandTests.path(".build/debug/netrules")

    @Test(
        .enabled(if: NetworkManagerMock.isAvailable, "\(NetworkManagerMock.unavailableReason)"),
        .enabled(if: FileManager.default.isExecutableFile(atPath: binary), "SKIPPED: no built .build/debug/netrules"))
    func statusShowsTheMockedNetworkManagersFacts() throws {
        let mock = try NetworkManagerMock()
        defer { mock.stop() }
        try mock.control("join", "ACME-Corp", "A4:2B:8C:92:47:3C")
        let output = mock.directory + "/status.json"
        let status = system(
            "DBUS_SYSTEM_BUS_ADDRESS='\(mock.address)' '\(Self.binary)' status --json "
                + "--socket '\(mock.directory)/none.sock' > '\(output)' 2>/dev/null")
        #expect(status == 0)
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        let facts = try #require(document["facts"] as? [String: Any])
        #expect(facts["connection"] as? String == "ACME-Corp")
        if !FileManager.default.fileExists(atPath: "/sys/class/ieee80211") {
            #expect(facts["ssid"] as? String == "ACME-Corp")
            #expect(facts["bssid"] as? String == "a4:2b:8c:92:47:3c")
        }
    }
}

/// `netrules facts` (issue 15).
@Suite(.timeLimit(.minutes(1)))
struct FactsCommandTests {
    @Test func aSubscribedFactIsListedWithItsTopicAsSource() async throws {
        let (directory, file) = try DoctorCommandTests.rules(
            """
            version: 1
            mqtt: { broker: "unix:/nonexistent/mqtt.sock", subscribe: { door: "office/+/door" } }
            rules: []
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await CommandTests.run(["facts", file, "--json", "--socket", directory.path + "/none.sock"])
        #expect(r.code == 0, "\(r.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let rows = try #require(document["facts"] as? [[String: Any]])
        let door = try #require(rows.first { $0["key"] as? String == "mqtt.door" }, "\(rows)")
        #expect(door["source"] as? String == "mqtt office/+/door")
        #expect(door["type"] as? String == "text, number or true/false")
        #expect(door["state"] as? String == "unknown")
    }

    @Test func listsBuiltInHostAndPluginFactsWithTypeSourceAndState() async throws {
        let (directory, file) = try DoctorCommandTests.rules(
            """
            version: 1
            hosts: { intranet: 192.0.2.10 }
            observers: [vpn]
            rules:
              - { name: r, when: { all: [ { unreachable: intranet }, { fact: { key: vpn.connected, equals: "true" } } ] }, do: [ { run: x } ] }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await CommandTests.run(
            ["facts", file, "--json", "--socket", directory.path + "/none.sock"],
            path: CommandTests.path("examples/plugins") + ":/usr/bin:/bin")
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no netrules daemon answered on \(directory.path)/none.sock: no such socket"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        let facts = try #require(document["facts"] as? [[String: Any]])
        let byKey = Dictionary(facts.map { ($0["key"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byKey["bssid"]?["type"] as? String == "MAC address")
        #expect(byKey["hosts.intranet"]?["source"] as? String == "host probes")
        #expect(byKey["hosts.intranet"]?["state"] as? String == "unknown")
        #expect(byKey["vpn.connected"]?["source"] as? String == "plugin vpn")
        #expect(byKey["interfaces.lo"]?["state"] as? String == "value")
        for fact in facts {
            #expect(["value", "absent", "unknown"].contains(fact["state"] as? String ?? ""))
        }
    }
}

/// `netrules completions bash|zsh|fish` (issue 15): generated from the command specification,
/// syntax-checked by each shell that is installed, and working in bash.
@Suite(.timeLimit(.minutes(1)))
struct CompletionsCommandTests {
    static func script(_ shell: String) async throws -> String {
        let r = await CommandTests.run("completions", shell)
        #expect(r.code == 0, "\(r.stderr)")
        return r.stdout
    }

    static func installed(_ shell: String) -> Bool { access("/usr/bin/" + shell, X_OK) == 0 }

    @Test(arguments: ["bash", "zsh", "fish"])
    func theScriptParsesInItsShellAndNamesEveryCommand(shell: String) async throws {
        let text = try await Self.script(shell)
        for command in ["run", "check", "simulate", "status", "watch", "explain", "doctor", "facts", "reload"] {
            #expect(text.contains(command), "\(shell) script lacks \(command)")
        }
        let option = shell == "fish" ? "-l " : "--"
        #expect(text.contains(option + "timeline") && text.contains(option + "socket"))
        // scripts/setup installs bash, zsh and fish, so the syntax of every script is checked.
        guard Self.installed(shell) else {
            Issue.record("\(shell) is not installed (scripts/setup installs it): its script's syntax was not checked")
            return
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("netrules-completion.\(shell)")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let check = shell == "fish" ? "fish --no-execute" : "\(shell) -n"
        #expect(system("\(check) '\(file.path)'") == 0, "\(shell) rejects the script")
    }

    @Test func bashCompletesSubcommandsAndOptionValues() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("netrules-completion-test.bash")
        try (try await Self.script("bash")).write(to: file, atomically: true, encoding: .utf8)
        func complete(_ words: String, _ index: Int) throws -> String {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("netrules-completion.out")
            let status = system(
                "bash -c 'source \(file.path); COMP_WORDS=(\(words)); COMP_CWORD=\(index); _netrules; "
                    + "echo \"${COMPREPLY[*]}\"' > '\(output.path)'")
            #expect(status == 0)
            return try String(contentsOf: output, encoding: .utf8)
        }
        #expect(try complete("netrules che", 1) == "check\n")
        #expect(try complete("netrules run --log-level no", 3) == "notice\n")
        #expect(try complete("netrules simulate --tr", 2).contains("--trace"))
    }
}

/// `status` and `watch` say when no daemon answered and they read the system themselves (issue 15).
@Suite(.timeLimit(.minutes(1)))
struct NoDaemonNoteTests {
    @Test func statusNamesTheSocketItTried() async {
        let r = await CommandTests.run("status", "--json", "--socket", "/tmp/netrules-none/control.sock")
        #expect(r.code == 0)
        #expect(
            r.stderr.hasPrefix(
                "note: no netrules daemon answered on /tmp/netrules-none/control.sock: no such socket; facts read directly"
            ),
            "\(r.stderr)")
        #expect(r.stdout.hasPrefix(#"{"version":1,"#))
    }
}
