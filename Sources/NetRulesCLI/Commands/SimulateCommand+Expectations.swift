import NetRulesConfig
import NetRulesCore

extension SimulateCommand {
    /// Checks the timeline's `expect:` against the replay's firings and says how it went.
    ///
    /// Each expectation not met is a diagnostic on stderr with its line; stdout ends with a count in
    /// text, or carries one `{"version":1,"event":"expectation",…}` line per expectation with `--json`.
    /// - Returns: whether every expectation was met (true when there are none).
    static func report(
        _ timeline: Timeline, _ firings: [Firing], file: String, source: SourceText, json: Bool, _ io: CommandIO
    ) -> Bool {
        let expectations = timeline.expectations
        guard !expectations.isEmpty else { return true }
        let failures = expectations.map { $0.failure(firings, file: file) }
        let unmet = failures.compactMap { $0 }
        if !unmet.isEmpty { io.stderr.write(unmet.map { $0.rendered(source: source) + "\n" }.joined()) }
        if json {
            for (expectation, failure) in zip(expectations, failures) {
                io.print(
                    JSONValue.object([
                        ("version", .number(1)), ("event", .string("expectation")),
                        ("line", .number(Double(expectation.mark.line))), ("expected", .string(expectation.summary)),
                        ("met", .bool(failure == nil)),
                    ]).compact)
            }
        } else if unmet.isEmpty {
            io.print("\(expectations.count) expectation\(expectations.count == 1 ? "" : "s") met")
        } else {
            io.print("\(unmet.count) of \(expectations.count) expectations not met")
        }
        return unmet.isEmpty
    }

    /// Expectations naming a rule that none of the loaded files defines: a typo would otherwise
    /// read as "expected and not seen", pointing at the timeline rather than at the name.
    static func unknownRules(_ expectations: [Timeline.Expectation], file: String, rules: [Rule]) -> [Diagnostic] {
        let names = rules.map(\.name)
        let known = Set(names)
        return expectations.compactMap { expectation in
            guard let rule = expectation.rule, !known.contains(rule) else { return nil }
            return Diagnostic(
                "no loaded rule is named '\(rule)'", file: file, mark: expectation.ruleMark,
                keyPath: expectation.path + ".fires",
                hint: RuleNameSuggestion.closest(to: rule, among: names).map { "did you mean '\($0)'?" }
                    ?? "'fires' names a rule, or 'none'")
        }
    }
}
