import Foundation
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesLinux
import Testing

@testable import NetRulesCLI

/// Issue 37, item 1: with an observer plugin that `provides: [ssid, bssid]` and `wifi: { source: none }`,
/// `facts` names the plugin as their source and the places as the source of `place` and `places.*`,
/// with no template row and no key twice, and `doctor` warns about no Wi-Fi fact; `FactSources` is
/// the one answer both commands give.
@Suite(.timeLimit(.minutes(1)))
struct FactSourcesTests {
    static let rules = """
        version: 1
        wifi: { source: none }
        observers:
          - name: wifi-helper
            command: [/bin/true]
            provides: [ssid, bssid]
        places:
          office: { when: { ssid: Office } }
          home:
            when: { ssid: Home }
            verify:
              - https: 192.0.2.1:443
                pin: sha256//r8UdqXcVnv5t2ZP4JQyW8ThqAGbRQm9b0rqyN0yk3Yk=
        rules:
          - name: at-office
            when: { all: [ { place: office }, { ssid: Office }, { bssid: "02:aa:bb:00:00:02" } ] }
            do:
              - run: "true"
        """

    static func file() throws -> (path: String, directory: String) {
        let directory = ControlFixture.makeTemporaryDirectory()
        try rules.write(toFile: directory + "/rules.yaml", atomically: true, encoding: .utf8)
        return (directory + "/rules.yaml", directory)
    }

    @Test func factsNamesThePluginAndThePlacesWithNoTemplateRowAndNoKeyTwice() async throws {
        let (path, directory) = try Self.file()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fake = FakeDaemonQueries(
            yaml: Self.rules,
            facts: [
                .ssid: .value(.string("Office")), .bssid: .value(.string("02:aa:bb:00:00:02")),
                "interfaces.wlan0": .value(.string("up")),
            ])
        let fixture = try await ControlFixture.start(fake)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": directory]
        let text = await CommandTests.run(["facts", path, "--socket", fixture.path], environment: environment)
        let json = await CommandTests.run(
            ["facts", path, "--json", "--socket", fixture.path], environment: environment)
        try await fixture.stop()
        #expect(text.code == 0 && json.code == 0, "\(text.stderr)\(json.stderr)")
        try FirstDayGolden.compare(text.stdout, to: "facts-plugin-wifi.text")

        let document = try JSONValue.parse(Array(json.stdout.utf8))
        let facts = try #require(FactRows(document), "no facts in \(json.stdout)")
        let keys = facts.keys
        let source = facts.source
        #expect(source("ssid") == "plugin wifi-helper")
        #expect(source("bssid") == "plugin wifi-helper")
        #expect(source("place") == "places")
        #expect(source("places.office") == "place office")
        // Only a place with proofs has proof facts.
        #expect(!keys.contains("places.office.proof") && !keys.contains("places.office.reason"))
        for key in ["places.home", "places.home.proof", "places.home.reason"] {
            #expect(source(key) == "place home", "\(key)")
        }
        #expect(!keys.contains { $0.contains("NAME") }, "\(keys)")
        #expect(Set(keys).count == keys.count, "\(keys)")
    }

    /// Without rule files the daemon that answers is the authority: its rules, kernel and bus name
    /// each source (here NetworkManager on the bus, which these rules leave the Wi-Fi facts to none of),
    /// and its rules' keys are listed, each once; a daemon that does not say leaves the rules' sources.
    @Test func factsWithoutRuleFilesNamesTheRunningDaemonsSources() async throws {
        let directory = ControlFixture.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = RuleLoader().load([RuleSource(file: "rules.yaml", bytes: Array(Self.rules.utf8))])
        let fake = FakeDaemonQueries(yaml: Self.rules, facts: [.ssid: .value(.string("Office"))])
        await fake.setFactSources(
            FactSources(ruleSet: loaded.ruleSet, kernelHasNL80211: false, networkManagerOnBus: true))
        let fixture = try await ControlFixture.start(fake)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": directory, "COLUMNS": "1000"]
        let json = await CommandTests.run(["facts", "--json", "--socket", fixture.path], environment: environment)
        let text = await CommandTests.run(["facts", "--socket", fixture.path], environment: environment)
        await fake.setFactSources(nil)
        let silent = await CommandTests.run(["facts", "--json", "--socket", fixture.path], environment: environment)
        try await fixture.stop()
        #expect(json.code == 0 && text.code == 0 && silent.code == 0, "\(json.stderr)\(text.stderr)\(silent.stderr)")

        let document = try JSONValue.parse(Array(json.stdout.utf8))
        #expect(document.member("sources_from")?.stringValue == "daemon")
        let facts = try #require(FactRows(document), "no facts in \(json.stdout)")
        let keys = facts.keys
        let source = facts.source
        #expect(source("ssid") == "plugin wifi-helper")
        #expect(source("bssid") == "plugin wifi-helper")
        #expect(source("frequency") == "none (wifi: { source: none })")
        #expect(source("connection") == "networkmanager")
        #expect(source("place") == "places")
        for key in ["places.office", "places.home", "places.home.proof", "places.home.reason"] {
            #expect(source(key) == "place \(key.split(separator: ".")[1])", "\(key)")
        }
        #expect(Set(keys).count == keys.count, "\(keys)")
        let rows = text.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first }
        #expect(rows.map(String.init) == keys, "the text lists the same keys")
        let ssidLine = text.stdout.split(separator: "\n").first { $0.hasPrefix("ssid ") }
        #expect(ssidLine?.contains("plugin wifi-helper") == true, "\(text.stdout)")

        let old = try JSONValue.parse(Array(silent.stdout.utf8))
        #expect(old.member("sources_from")?.stringValue == "rules")
    }

    @Test func doctorWarnsAboutNoWiFiFactThePluginProvides() async throws {
        let (path, directory) = try Self.file()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let r = await CommandTests.run(
            ["doctor", path, "--json", "--socket", directory + "/none.sock", "--state-dir", directory + "/state"],
            environment: ["PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        let checks = try DoctorCommandTests.checks(r.stdout)
        #expect(checks["wifi-source"]?["status"] as? String == "ok", "\(checks)")
        #expect(
            (checks["wifi-source"]?["detail"] as? String)?.hasPrefix("ssid and bssid come from plugin wifi-helper")
                == true)
        #expect(checks["fact ssid"] == nil && checks["fact bssid"] == nil, "\(checks)")
        #expect(checks["facts"]?["status"] as? String == "ok", "\(checks)")
    }

    /// Doctor's source checks for these rules do not depend on the machine: with `wifi: { source: none }`
    /// the Wi-Fi facts are the plugin's or nobody's, with nl80211 or without, NetworkManager or not.
    @Test func doctorsSourceChecksAreTheSameOnEveryMachine() throws {
        let loaded = RuleLoader().load([RuleSource(file: "rules.yaml", bytes: Array(Self.rules.utf8))])
        #expect(!loaded.hasErrors, "\(loaded.renderedDiagnostics())")
        var texts: [String] = []
        for kernel in [false, true] {
            for bus in [false, true] {
                let sources = FactSources(ruleSet: loaded.ruleSet, kernelHasNL80211: kernel, networkManagerOnBus: bus)
                let checks =
                    [DoctorCommand.wifiSourceCheck(sources)]
                    + DoctorCommand.factChecks(reading: loaded.ruleSet.readKeys, sources: sources)
                texts.append(checks.map(\.text).joined(separator: "\n") + "\n")
            }
        }
        #expect(Set(texts).count == 1, "\(texts)")
        try FirstDayGolden.compare(texts[0], to: "doctor-plugin-wifi.text")
    }

    /// `wifi.source`, whether the kernel has nl80211, whether NetworkManager is on the bus (nil: not
    /// asked, as `facts` does not), a key, and the source `facts` names: the observers the daemon's
    /// `ObserverPlan` would run.
    static let table: [(WiFiSettings.Source, Bool, Bool?, FactKey, String)] = [
        (.auto, true, nil, .ssid, "nl80211"),
        (.auto, true, nil, .signal, "nl80211"),
        (.auto, false, nil, .ssid, "networkmanager"),
        (.auto, false, false, .ssid, "none (NetworkManager is not on the bus)"),
        (.auto, false, true, .signal, "none (nl80211 only)"),
        (.auto, true, true, .signalQuality, "none (nl80211 serves Wi-Fi)"),
        (.auto, false, true, .signalQuality, "networkmanager"),
        (.nl80211, false, nil, .ssid, "none (no nl80211 here)"),
        (.networkmanager, true, true, .ssid, "networkmanager"),
        (.networkmanager, true, true, .signal, "none (nl80211 only)"),
        (.none, true, true, .ssid, "none (wifi: { source: none })"),
        (.none, true, true, .signal, "none (wifi: { source: none })"),
        (.none, false, true, .signalQuality, "none (wifi: { source: none })"),
        (.auto, true, false, .vpn, "netlink"),
        (.auto, true, nil, .vpn, "netlink, networkmanager"),
        (.auto, true, false, .connection, "none (NetworkManager is not on the bus)"),
        (.auto, true, nil, .connection, "networkmanager"),
        (.auto, true, nil, .gatewayMAC, "netlink"),
        (.auto, true, nil, .place, "places"),
        (.auto, true, nil, "places.home.proof", "place home"),
        (.auto, true, nil, "hosts.nas", "host probes"),
        (.auto, true, nil, "helper.band", "a plugin (none configured)"),
    ]

    @Test(arguments: 0..<table.count)
    func eachFactIsNamedAfterTheObserverTheDaemonWouldRun(index: Int) {
        let (setting, kernel, bus, key, expected) = Self.table[index]
        let ruleSet = RuleSet(wifi: WiFiSettings(source: setting))
        let sources = FactSources(ruleSet: ruleSet, kernelHasNL80211: kernel, networkManagerOnBus: bus)
        #expect(sources.source(of: key).label == expected, "\(setting) \(kernel) \(String(describing: bus)) \(key)")
    }
}

/// The rows of a `facts --json` document: each key, and the source named for one.
private struct FactRows {
    let facts: [JSONValue]

    init?(_ document: JSONValue) {
        guard case .array(let facts)? = document.member("facts") else { return nil }
        self.facts = facts
    }

    var keys: [String] { facts.compactMap { $0.member("key")?.stringValue } }

    func source(_ key: String) -> String? {
        facts.first { $0.member("key")?.stringValue == key }?.member("source")?.stringValue
    }
}
