import Foundation
import NetRulesConfig
import NetRulesCore
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct RuleLoaderTests {
    static func load(_ text: String, plugins: [String: String] = [:]) -> LoadResult {
        RuleLoader(findActionPlugin: { name, _ in plugins[name] })
            .load([RuleSource(file: "test.yaml", bytes: Array(text.utf8))])
    }

    static let issueExample = """
        version: 1
        rules:
          - name: office-check-in
            when:
              all:
                - ssid: XF-WORLD
                - bssid: [a4:2b:8c:92:47:3c, A4-2B-8C-92-47-3D, a42b8c92473e]
                - portal: clear
            on: enter            # enter (default) | exit | [enter, exit]
            for: 10s             # the condition must hold this long before the edge fires
            cooldown: 8h         # after firing, this rule's firings are dropped for this long
            do:
              - webhook: { url: "https://hr.example.com/check-in", json: { bssid: "{{bssid}}" } }
              - write: { path: /var/lib/netrules/checkins.log, append: true, content: "{{time}} {{ssid}} {{bssid}}\\n" }
          - name: vpn-away-from-home
            when: { not: { ssid: [HomeNet, HomeNet-5G] } }
            do:
              - run: /usr/local/bin/vpn-up
        """

    @Test func loadsTheIssueExample() throws {
        let result = Self.load(Self.issueExample)
        #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())")
        let rules = result.ruleSet.rules
        try #require(rules.count == 2)
        #expect(rules[0].name == "office-check-in")
        #expect(rules[0].edges == [.enter])
        #expect(rules[0].hold == .seconds(10))
        #expect(rules[0].cooldown == .seconds(8 * 3600))
        #expect(rules[0].actions.map(\.kind) == ["webhook", "write"])
        #expect(rules[0].origin == "test.yaml:3:5")
        let write = try #require(rules[0].actions[1].action.write)
        #expect(write.append && write.path == "/var/lib/netrules/checkins.log")
        #expect(write.content.source == "{{time}} {{ssid}} {{bssid}}\n")
        let facts = FactStore.with([.ssid: "XF-WORLD", .bssid: "A4:2B:8C:92:47:3E", .connectivity: "online"])
        #expect(rules[0].condition.evaluate(facts) == .true)
        #expect(rules[1].condition.evaluate(.with([.ssid: "HomeNet-5G"])) == .false)
        #expect(rules[1].condition.evaluate(.with([.ssid: nil])) == .true)
        #expect(result.ruleSet.demand.needsConnectivity)
    }

    @Test func portalProbeURLsMustBeProbeable() {
        let result = Self.load(
            """
            version: 1
            connectivity:
              probes:
                - { url: "https://192.0.2.1/hotspot-detect.html" }
                - { url: "http://user@192.0.2.1/hotspot-detect.html" }
                - { url: "http://192.0.2.1:99999/" }
                - { url: "http://192.0.2.1/generate_204", status: 204 }
            rules:
              - name: r
                when: { connectivity: online }
                do: [ { run: "true" } ]
            """)
        let messages = result.diagnostics.map { "\($0.mark.line):\($0.mark.column): \($0.message)" }
        #expect(
            messages == [
                "4:14: a portal probe URL must be plain http://",
                "5:14: a portal probe URL that cannot be probed: the URL names a user",
                "6:14: a portal probe URL that cannot be probed: the port is not a number from 1 to 65535",
            ], "\(result.renderedDiagnostics())")
    }

    @Test func yaml11WordsStayStrings() {
        let result = Self.load(
            """
            version: 1
            rules:
              - name: r
                when: { ssid: no, any: [ { ssid: 0123 }, { ssid: "1.0" } ] }
                do: [ { run: "true" } ]
            """)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        let c = result.ruleSet.rules.first?.condition
        #expect(c?.evaluate(.with([.ssid: "no"])) == .false)  // 'no' ∧ ('0123' ∨ '1.0') cannot both hold
        #expect(SSIDCondition(.oneOf([Array("no".utf8)])).evaluate(.with([.ssid: "no"])) == .true)
    }

    @Test func inlineAndNamedHostsFeedTheProbeDemand() {
        let result = Self.load(
            """
            version: 1
            hosts:
              intranet: { address: 10.0.0.5, tries: 5, timeout: 1s }
              mail: mail.example.com:993
            rules:
              - name: a
                when: { unreachable: intranet }
                do: [ { run: "true" } ]
              - name: b
                when: { any: [ { reachable: "10.9.9.9" }, { reachable: "db.example.com:5432" } ] }
                do: [ { run: "true" } ]
            """)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        let demand = result.ruleSet.demand
        #expect(demand.hosts.map(\.name) == ["intranet", "10.9.9.9", "db.example.com:5432"])
        #expect(demand.hosts[0].tries == 5 && demand.hosts[0].timeout == .seconds(1))
        #expect(demand.hosts[2].port == 5432 && demand.hosts[2].address == "db.example.com")
        #expect(!demand.needsConnectivity)
    }

    @Test func pluginActionsResolveAtLoadTime() throws {
        let text = """
            version: 1
            plugins: [/opt/netrules/plugins]
            rules:
              - name: a
                when: { network: wifi }
                do:
                  - notify: { title: "On {{ssid}}", urgent: true, count: 3 }
                    timeout: 5s
                    continue_on_error: true
            """
        let found = Self.load(text, plugins: ["notify": "/opt/netrules/plugins/netrules-action-notify"])
        #expect(!found.hasErrors, "\(found.renderedDiagnostics())")
        let spec = try #require(found.ruleSet.rules.first?.actions.first)
        #expect(spec.continueOnError)
        let plugin = try #require(spec.action.plugin)
        #expect(plugin.executablePath == "/opt/netrules/plugins/netrules-action-notify")
        #expect(plugin.timeout == .seconds(5))
        #expect(plugin.options["urgent"] == .bool(true) && plugin.options["count"] == .number(3))
        #expect(plugin.options["title"] == .string("On {{ssid}}"))
        #expect(found.ruleSet.pluginDirectories == ["/opt/netrules/plugins"])

        let missing = Self.load(text)
        #expect(missing.hasErrors)
        #expect(missing.diagnostics.first?.message.contains("'netrules-action-notify' was not found") == true)
    }

    @Test func aFailedRuleIsLeftOutAndOthersStay() {
        let result = Self.load(
            """
            version: 1
            rules:
              - name: good
                when: { ssid: A }
                do: [ { run: "true" } ]
              - name: bad
                when: { ssid: A, bssid: nope }
                do: [ { run: "true" } ]
            """)
        #expect(result.hasErrors)
        #expect(result.ruleSet.rules.map(\.name) == ["good"])
        #expect(result.diagnostics.map(\.keyPath) == ["rules[1].when.bssid"])
    }

    @Test func fingerprintsFollowTheDefinitionNotTheLayout() {
        func fingerprint(_ rule: String) -> String? {
            Self.load("version: 1\nrules:\n" + rule).ruleSet.rules.first?.fingerprint
        }
        let a = fingerprint("  - name: r\n    when: { ssid: A }\n    do: [ { run: x } ]\n")
        let b = fingerprint("  # moved\n  - name: r\n    when:\n      ssid: A\n    do:\n      - run: x\n")
        let c = fingerprint("  - name: r\n    when: { ssid: B }\n    do: [ { run: x } ]\n")
        #expect(a != nil && a == b)
        #expect(a != c)
    }

    @Test func severalFilesShareNamesAndHosts() {
        let loader = RuleLoader()
        let one = RuleSource(
            file: "a.yaml",
            bytes: Array(
                "version: 1\nhosts: { h: 10.0.0.1 }\nrules:\n  - { name: r, when: { unreachable: h }, do: [ { run: x } ] }\n"
                    .utf8))
        let two = RuleSource(
            file: "b.yaml",
            bytes: Array("version: 1\nrules:\n  - { name: r, when: { unreachable: h }, do: [ { run: x } ] }\n".utf8))
        let result = loader.load([one, two])
        #expect(result.ruleSet.rules.count == 1)
        #expect(
            result.diagnostics.map(\.description) == [
                "b.yaml:3:7: error: a rule named 'r' already exists (at a.yaml:4:5)"
            ])
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    @Test(arguments: ["office-check-in", "vpn-away-from-home", "captive-portal", "intranet-down"])
    func shippedRulesAreClean(name: String) throws {
        let url = Self.repositoryRoot.appendingPathComponent("rules/\(name).yaml")
        let result = RuleLoader().load([RuleSource(file: url.path, bytes: Array(try Data(contentsOf: url)))])
        #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())")
        #expect(!result.ruleSet.rules.isEmpty)
    }
}

/// Every fixed fact the catalog documents is a template name, NetworkManager's included.
@Suite(.timeLimit(.minutes(1)))
struct TemplateVocabularyTests {
    @Test func everyBuiltInFactIsATemplateName() {
        for key in FactCatalog.fixedKeys {
            #expect(TemplateName(key.rawValue) == .fact(key), "{{\(key.rawValue)}}")
        }
        let result = RuleLoaderTests.load(
            """
            version: 1
            rules:
              - name: nm
                when: { ssid: Office }
                do:
                  - run: echo {{connection}} {{vpn}} {{nm.connectivity}} {{signal.quality}} {{connection.type}}
            """)
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
    }
}
