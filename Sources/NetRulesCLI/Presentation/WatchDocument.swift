import NetRulesCore
import NetRulesDaemon

/// One `watch` line, as text and JSON, whether a daemon sent the change or the command line's
/// own observers saw it.
///
/// Both paths hold the change as `ControlDocuments.change` writes it: `version`, `key`, `old`,
/// `new`, `at`, with `old`/`new` left out when unknown and `null` when known absent.
enum WatchDocument {
    /// The `--json` line.
    static func json(_ document: JSONValue) -> String { document.compact + "\n" }

    /// `HH:MM:SS[.mmm]  KEY  OLD -> NEW`: the time of day of `at` (UTC, as precise as `at`),
    /// `unknown` for a left-out side, `null` for known absent, lists in brackets.
    static func text(_ document: JSONValue) -> String {
        let at = document.member("at")?.plainText ?? ""
        let time = at.split(separator: "T").last.map { $0.hasSuffix("Z") ? String($0.dropLast()) : String($0) } ?? at
        let key = document.member("key")?.plainText ?? "?"
        let old = JSONValue.stateText(document.member("old"))
        let new = JSONValue.stateText(document.member("new"))
        return "\(time)  \(key)  \(old) -> \(new)\n"
    }
}
