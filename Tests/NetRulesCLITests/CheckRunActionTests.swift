import Foundation
import Testing

/// What `check` says about `run:` actions (issue 24, items 1, 14 and 21): a program that is not on
/// PATH is a warning (exit 0), `{{edge}}`-like values draw no option warning, an unknown `user:`
/// is an error (exit 65). Byte for byte against `Golden/check-run/*.expected`; `NETRULES_RECORD=1`
/// rewrites them (review the diff).
@Suite(.timeLimit(.minutes(1)))
struct CheckRunActionTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden/check-run")

    func check(_ name: String) async throws -> Int32 {
        let r = await CommandTests.run(["check", Self.golden.appendingPathComponent("\(name).yaml").path])
        let prefix = CommandTests.root.path + "/"
        let actual =
            "exit: \(r.code)\nstdout:\n\(r.stdout)stderr:\n\(r.stderr)".replacingOccurrences(of: prefix, with: "")
        let url = Self.golden.appendingPathComponent("\(name).expected")
        if ProcessInfo.processInfo.environment["NETRULES_RECORD"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("recorded \(name).expected; review the diff and run again without NETRULES_RECORD")
        } else {
            #expect(actual == (try String(contentsOf: url, encoding: .utf8)))
        }
        return r.code
    }

    @Test func aProgramNotOnPATHIsAWarningAndDefinedValuesAreNotOptions() async throws {
        #expect(try await check("programs") == 0)
    }

    @Test func anUnknownUserIsAnError() async throws {
        #expect(try await check("users") == 65)
    }
}
