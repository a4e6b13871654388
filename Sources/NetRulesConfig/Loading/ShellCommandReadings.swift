import NetRulesCore
import Synchronization

/// The `run:` commands one load has read, by text, so a command written in many rules is lexed once.
///
/// Reading a command as the shell will (`ShellCommandTemplate`) is the dearest step of a rule, and
/// generated or copied rule files repeat the same few commands across thousands of rules. A reading
/// depends only on the command's text and on whether `{{rule}}` can read as an option
/// (`ShellCommandTemplate.ruleNameIsNeverAnOption`), so that pair is the key. Each rule still reports
/// the reading's issues at its own positions.
///
/// Shared by the copies of a load's `ValidationContext`s, hence a class; the lock makes sharing it
/// safe, and one load takes it without contention.
final class ShellCommandReadings: Sendable {
    private struct Key: Hashable {
        var text: String
        var ruleNameIsNeverAnOption: Bool
    }

    private let readings = Mutex<[Key: Result<ShellCommandTemplate, ShellCommandRefusal>]>([:])

    /// The reading of `template` in a rule called `ruleName`: the one made before for the same key,
    /// else a new one, kept.
    func reading(of template: Template, ruleName: String?) -> Result<ShellCommandTemplate, ShellCommandRefusal> {
        let key = Key(
            text: template.source,
            ruleNameIsNeverAnOption: ShellCommandTemplate.ruleNameIsNeverAnOption(ruleName))
        if let known = readings.withLock({ $0[key] }) { return known }
        let reading = Self.read(template, ruleName: ruleName)
        readings.withLock { $0[key] = reading }
        return reading
    }

    /// Reads `template` as the command of a rule called `ruleName`, without keeping it.
    static func read(_ template: Template, ruleName: String?) -> Result<ShellCommandTemplate, ShellCommandRefusal> {
        Result { () throws(ShellCommandRefusal) in try ShellCommandTemplate(template, ruleName: ruleName) }
    }
}
