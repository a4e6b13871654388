import NetRulesCore

/// What a reload through the control socket did.
package struct ReloadOutcome: Sendable, Hashable {
    /// Whether the new rules are running (false: the old ones still are).
    package var reloaded: Bool
    /// How many rules run now.
    package var rules: Int
    /// The diagnostics and refusals, rendered with their source lines, as a person reads them.
    package var rendered: String
    /// The diagnostics, for `reload --json` (the objects `check --json` prints).
    package var diagnostics: [Diagnostic]
    /// The files refused for their ownership or mode (as `check --json`'s `refused`).
    package var refused: [String]

    package init(reloaded: Bool, rules: Int, rendered: String, diagnostics: [Diagnostic] = [], refused: [String] = []) {
        self.reloaded = reloaded
        self.rules = rules
        self.rendered = rendered
        self.diagnostics = diagnostics
        self.refused = refused
    }
}
