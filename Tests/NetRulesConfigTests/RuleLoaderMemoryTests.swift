import CGlibcMalloc
import NetRulesConfig
import NetRulesCore
import Testing

/// What a loaded rule keeps in memory: the heap bytes a load holds grow by a bounded amount per rule.
///
/// The rules are the engine benchmark's: each reads the SSID and a host, fires on both edges and runs
/// the same command. Loading N and then 2N of them and taking the difference leaves out what a load
/// holds whatever its size (the registry, the tables), so the figure is the cost of one more rule.
@Suite(.timeLimit(.minutes(2)))
struct RuleLoaderMemoryTests {
    static func ruleFile(_ count: Int) -> [UInt8] {
        var text = "version: 1\nrules:\n"
        for i in 0..<count {
            text += """
                  - name: rule-\(i)
                    when:
                      all:
                        - ssid: Net-\(i % 50)
                        - unreachable: host-\(i % 100)
                    on: [enter, exit]
                    do:
                      - run: echo {{rule}} {{ssid}}

                """
        }
        return Array(text.utf8)
    }

    /// The heap bytes in use while the result of loading `count` rules is alive, less those before.
    static func bytesHeld(loading count: Int) -> Int {
        let bytes = ruleFile(count)
        let before = mallinfo2().uordblks
        let result = RuleLoader().load([RuleSource(file: "rules.yaml", bytes: bytes)])
        let after = mallinfo2().uordblks
        #expect(result.ruleSet.rules.count == count && !result.hasErrors)
        withExtendedLifetime(result) {}
        return Int(after) - Int(before)
    }

    @Test func eachRuleHoldsABoundedNumberOfBytes() {
        _ = Self.bytesHeld(loading: 100)  // Warms what the first load allocates once.
        let n = 1000
        let perRule = (Self.bytesHeld(loading: 2 * n) - Self.bytesHeld(loading: n)) / n
        // 1,177 bytes a rule in the debug build, where the rules share one reading of their command.
        #expect(perRule > 0)
        #expect(perRule < 1500, "\(perRule) bytes held per rule")
    }
}
