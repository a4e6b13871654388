import Foundation
import Testing

/// The texts issue 24 ("a new user's first day") settles, compared byte for byte with `Golden/first-day/NAME`.
///
/// `NETRULES_RECORD=1` rewrites them (the recording run fails, so it is never mistaken for a pass); review the diff.
enum FirstDayGolden {
    static let directory = CommandTests.root.appendingPathComponent("Tests/NetRulesCLITests/Golden/first-day")

    static func compare(
        _ actual: String, to name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["NETRULES_RECORD"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("recorded \(name); review the diff and run again without NETRULES_RECORD")
            return
        }
        let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "(no golden file \(name))"
        #expect(actual == expected, sourceLocation: sourceLocation)
    }
}
