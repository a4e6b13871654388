import NetRulesConfig

/// `rules`: the bytes as a rule file, through YAML, validation and the rendering of every diagnostic.
enum RulesTarget {
    static func run(_ bytes: [UInt8]) {
        let result = RuleLoader().load([RuleSource(file: "fuzz.yaml", bytes: bytes)])
        keep(result.renderedDiagnostics())
        keep(result.ruleSet)
        keep(result.errorCount)
    }
}
