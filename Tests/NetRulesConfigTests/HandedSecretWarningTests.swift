import NetRulesConfig
import NetRulesCore
import Synchronization
import Testing

/// `check` warns, at the placeholder, of each `{{env.NAME}}` an action run as another user reads
/// (issue 34, item 5): in a `run:` command, its `env:`, or a plugin's options. The action still
/// loads (the rule author chose to hand it over); `user: root` and an action without `user:` draw
/// no such warning. The trust check on what runs as root is asked only for those.
@Suite(.timeLimit(.minutes(1)))
struct HandedSecretWarningTests {
    static let rules = """
        version: 1
        rules:
          - name: desk
            when: { ssid: Office }
            do:
              - notify: { title: "{{ssid}}", token: "{{env.TOKEN}}" }
                user: active
              - run: { command: "logger -- {{env.TOKEN}}", user: root }
              - run: { command: "/opt/x/run -- {{env.TOKEN}}", user: nobody }
              - run: /opt/x/run

        """

    @Test func aSecretHandedToAnotherUserIsAWarningAtThePlaceholder() {
        var loader = RuleLoader(findActionPlugin: { name, _ in "/usr/lib/netrules/netrules-action-\(name)" })
        let asked = Locked()
        loader.programTrustProblem = { word, role, _, _ in
            asked.append("\(word) \(role)")
            return nil
        }
        let result = loader.load([RuleSource(file: "r.yaml", bytes: Array(Self.rules.utf8))])
        #expect(!result.hasErrors && result.ruleSet.rules.count == 1)
        let warnings = result.diagnostics.map { "\($0.mark.line):\($0.mark.column) \($0.keyPath ?? "") \($0.message)" }
        #expect(
            warnings == [
                "6:46 rules[0].do[0].notify.token {{env.TOKEN}} hands a secret of the daemon's environment to the "
                    + "user of the active graphical session (user: active): the action runs as that user, who can "
                    + "read its value",
                "9:40 rules[0].do[2].run.command {{env.TOKEN}} hands a secret of the daemon's environment to the "
                    + "user 'nobody' (user: nobody): the action runs as that user, who can read its value",
            ])
        // The root actions' programs are asked about; nobody's is not.
        #expect(asked.values == ["logger program", "/opt/x/run program"])
    }
}

/// Collects what a `@Sendable` closure saw.
private final class Locked: Sendable {
    private let stored = Mutex<[String]>([])
    func append(_ value: String) { stored.withLock { $0.append(value) } }
    var values: [String] { stored.withLock { $0 } }
}
