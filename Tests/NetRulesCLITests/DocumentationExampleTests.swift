import Foundation
import Testing

/// Every YAML block in README.md and docs/ is checked as a user would use it (issue 12, item 7):
/// rule files (and rule fragments, wrapped in the smallest rule around them) with `check`,
/// timelines with `simulate` against the shipped rules. A block preceded by
/// `<!-- deliberately invalid -->` must fail instead.
@Suite(.timeLimit(.minutes(1)))
struct DocumentationExampleTests {
    struct Block: CustomStringConvertible, Sendable {
        var file: String
        var line: Int
        var text: String
        var invalid: Bool
        var description: String { "\(file):\(line)" }
    }

    static let blocks: [Block] = {
        let root = CommandTests.root
        let docs =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        let files = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        var found: [Block] = []
        for file in files {
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else {
                continue
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var index = 0
            while index < lines.count {
                if lines[index].hasPrefix("```yaml") || lines[index].hasPrefix("```yml") {
                    let start = index
                    var body: [String] = []
                    index += 1
                    while index < lines.count, !lines[index].hasPrefix("```") {
                        body.append(lines[index])
                        index += 1
                    }
                    let invalid = start > 0 && lines[start - 1].contains("<!-- deliberately invalid -->")
                    found.append(
                        Block(file: file, line: start + 1, text: body.joined(separator: "\n") + "\n", invalid: invalid))
                }
                index += 1
            }
        }
        return found
    }()

    /// The block as a whole rule file: fragments get the least around them to be one.
    static func ruleFile(_ text: String) -> String {
        let first = text.split(separator: "\n").first.map(String.init) ?? ""
        func indented(_ spaces: Int) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.isEmpty ? "" : String(repeating: " ", count: spaces) + $0
            }.joined(separator: "\n")
        }
        if first.hasPrefix("version:") { return text }
        if first.hasPrefix("when:") || first.hasPrefix("do:") {
            var rule = "version: 1\nrules:\n  - name: documentation-example\n" + indented(4) + "\n"
            if !text.contains("\ndo:") && !first.hasPrefix("do:") { rule += "    do: [ { run: \"true\" } ]\n" }
            if first.hasPrefix("do:") { rule += "    when: { ssid: Example }\n" }
            return rule
        }
        return "version: 1\n" + text + (text.contains("rules:") ? "" : "rules: []\n")
    }

    @Test(arguments: blocks)
    func aDocumentedExampleDoesWhatItsTextSays(block: Block) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("example.yaml")
        let outcome: CommandTests.Outcome
        if block.text.hasPrefix("- at:") || block.text.hasPrefix("steps:") {
            try block.text.write(to: file, atomically: true, encoding: .utf8)
            outcome = await CommandTests.run("simulate", CommandTests.path("rules"), "--timeline", file.path)
        } else {
            try Self.ruleFile(block.text).write(to: file, atomically: true, encoding: .utf8)
            outcome = await CommandTests.run(
                ["check", file.path], path: CommandTests.path("examples/plugins") + ":/usr/bin:/bin")
        }
        if block.invalid {
            #expect(outcome.code == 65, "\(block) is marked invalid but passed")
        } else {
            #expect(outcome.code == 0, "\(block): \(outcome.stderr)")
        }
    }
}
