import NetRulesConfig
import NetRulesCore

/// `timeline`: the bytes as a timeline file, parsed and replayed through the engine as `simulate` does.
package enum TimelineTarget {
    /// Rules over every kind of fact a timeline can set, with holds and a cooldown, for the replay.
    static let rules: [Rule] = loadRules().ruleSet.rules

    /// Loads `rules`; a test checks they load without a diagnostic.
    package static func loadRules() -> LoadResult {
        let yaml = """
            version: 1
            hosts:
              intranet: { address: 10.20.0.5 }
            rules:
              - name: office
                when: { ssid: [XF-WORLD, "Caf\\u00e9"], bssid: [a4:2b:8c:92:47:3d, A4-2B-8C-92-47-3E] }
                on: [enter, exit]
                for: 10s
                cooldown: 8h
                do: [{ run: 'echo "office: {{edge}} {{ssid}}"' }]
              - name: portal
                when: { any: [{ portal: detected }, { connectivity: offline }] }
                on: [enter, exit]
                do: [{ run: 'echo "portal: {{portal.url}}"' }]
              - name: network
                when:
                  all:
                    - { gateway: [10.0.0.1, "fe80::1"] }
                    - { address: [10.0.0.0/8, "fd00::/8"] }
                    - { network: [wifi, wired] }
                    - { not: { interface: { name: wg0, state: up } } }
                for: 1m
                do: [{ run: 'echo "network: {{gateway}} {{ip}}"' }]
              - name: facts
                when:
                  any:
                    - { signal: { above: -70, below: -20 } }
                    - { fact: { key: vpn.connected, equals: "true" } }
                    - { fact: { key: vpn.server, in: [a, b] } }
                    - { fact: { key: vpn.load, above: 1.5 } }
                    - { ssid: { matches: "^Guest" } }
                    - { unreachable: intranet }
                on: exit
                do: [{ run: 'echo "facts: {{fact.vpn.server}}"' }]
            """
        return RuleLoader().load([RuleSource(file: "timeline-rules.yaml", bytes: Array(yaml.utf8))])
    }

    static func run(_ bytes: [UInt8]) {
        let (timeline, diagnostics) = Timeline.parse(bytes, file: "fuzz-timeline.yaml")
        let source = SourceText(file: "fuzz-timeline.yaml", bytes: bytes)
        keep(diagnostics.map { $0.rendered(source: source) }.joined())
        guard let timeline else { return }
        let firings = timeline.replay(rules: rules)
        keep(firings.map { "\(DurationSyntax.format($0.at.offset)) \($0.rule) \($0.edge)" })
    }
}
