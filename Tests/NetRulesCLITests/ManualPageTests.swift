import Foundation
import NetRulesCLI
import NetRulesTesting
import Testing

/// The manual pages in docs/man: current, lint-clean, and saying what `--help` says (issue 15).
///
/// The pages are generated (`ManualPages`) and committed, so the Debian package needs no build step for them. When
/// the command specification or docs/rules.md changes, `NETRULES_RECORD=1 swift test --filter ManualPageTests`
/// rewrites them (review the diff); the recording run fails, so it is never mistaken for a passing one.
@Suite(.timeLimit(.minutes(1)))
struct ManualPageTests {
    struct Page: CustomTestStringConvertible, Sendable {
        var name: String
        var generate: @Sendable () throws -> String
        var testDescription: String { name }
    }

    static let directory = CommandTests.root.appendingPathComponent("docs/man")

    static let pages: [Page] = [
        Page(name: ManualPages.commandReferenceName) { ManualPages.commandReference },
        Page(name: ManualPages.ruleLanguageName) {
            let markdown = try String(
                contentsOf: CommandTests.root.appendingPathComponent("docs/rules.md"), encoding: .utf8)
            return ManualPages.ruleLanguage(markdown: markdown)
        },
    ]

    static let mandoc = ["/usr/bin/mandoc", "/bin/mandoc"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static let mandocMissing = "mandoc is not installed (scripts/setup installs it): the pages cannot be rendered"

    @Test(arguments: pages)
    func theCommittedPageIsCurrent(_ page: Page) throws {
        let actual = try page.generate()
        let file = Self.directory.appendingPathComponent(page.name)
        if ProcessInfo.processInfo.environment["NETRULES_RECORD"] == "1" {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("recorded docs/man/\(page.name); review the diff and run again without NETRULES_RECORD")
            return
        }
        let committed = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard committed != actual else { return }
        // The first line that differs, rather than two whole pages.
        let old = committed.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
        Issue.record(
            """
            docs/man/\(page.name) is not what the command specification and docs/rules.md give; from line \(line + 1) \
            it has '\(line < old.count ? old[line] : "(end)")' where '\(line < new.count ? new[line] : "(end)")' is \
            generated. Run NETRULES_RECORD=1 swift test --filter ManualPageTests, review the diff and commit it.
            """)
    }

    @Test(.enabled(if: mandoc != nil, "\(mandocMissing)"), arguments: pages)
    func mandocFindsNothingToSay(_ page: Page) throws {
        let file = Self.directory.appendingPathComponent(page.name).path
        let result = try Self.mandoc(["-T", "lint", file])
        // Whether a page named by .Xr is installed says something about this machine, not about the page.
        let messages = result.output.split(separator: "\n").filter {
            !$0.contains("referenced manual not found") && !$0.contains("outdated mandoc.db")
        }
        #expect(messages == [])
    }

    /// Each command's arguments and options, as its `--help` lists them, are in its subsection of netrules.1.
    @Test(.enabled(if: mandoc != nil, "\(mandocMissing)"))
    func theCommandReferenceSaysWhatHelpSays() async throws {
        let page = try Self.mandoc([
            "-T", "utf8", "-O", "width=1000", Self.directory.appendingPathComponent("netrules.1").path,
        ])
        #expect(page.status == 0)
        let subsections = Self.subsections(ofRendered: page.output)
        let root = try await Self.help([])
        let commands = Self.entries(of: root, section: "SUBCOMMANDS").map(\.label)
        #expect(commands.count >= 10)
        #expect(Set(subsections.keys) == Set(commands + [""]))
        var checks: [(command: String, entries: [(label: String, description: String)], text: String)] = []
        // The root's own options (--version, --help) are described once, before the subsections.
        checks.append(("netrules", Self.entries(of: root, section: "OPTIONS"), subsections["", default: ""]))
        for command in commands {
            let help = try await Self.help([command])
            let entries = Self.entries(of: help, section: "ARGUMENTS") + Self.entries(of: help, section: "OPTIONS")
            checks.append((command, entries.filter { $0.label != "-h, --help" }, subsections[command, default: ""]))
        }
        // And the overview: the abstract and each paragraph of the discussion.
        for command in commands {
            let help = try await Self.help([command])
            let text = subsections[command, default: ""]
            for paragraph in Self.overview(of: help) {
                #expect(text.contains(Self.normalised(paragraph)), "\(command): '\(paragraph)' is not in netrules.1")
            }
        }
        for check in checks {
            for entry in check.entries {
                let label = entry.label.filter { $0 != "<" && $0 != ">" }
                #expect(check.text.contains(Self.normalised(label)), "\(check.command): \(label) is not in netrules.1")
                #expect(
                    check.text.contains(Self.normalised(entry.description)),
                    "\(check.command) \(label): '\(entry.description)' is not in netrules.1")
            }
        }
    }

    @Test func markdownBecomesMdoc() {
        let page = ManualPages.ruleLanguage(
            markdown: """
                # Title

                Intro with `code`, (`wrapped`) and `a`/`b`.
                Code `.` and `No` and `\\d` and `say "hi"`.
                .starts with a dot \\ and a backslash, e.g. here, \u{2014} there. Next.

                ## Facts

                | key | value |
                | --- | --- |
                | `ssid` | the name, `a \\| b` |

                - one
                  more
                - two

                    indented code
                """)
        let body = page.split(separator: "\n").drop { $0 != ".Sh DESCRIPTION" }.dropFirst()
            .prefix { $0 != ".Sh \"SEE ALSO\"" }
        #expect(
            Array(body) == [
                "Intro with", ".Ql code ,", ".Pf \\&( Ql wrapped )", "and", ".So Li a Sc Ns No / Ns Ql b .",
                "Code", ".Ql \\&.", "and", ".Ql \\&No", "and", ".Ql \\ed", "and", ".Ql \"say \\(dqhi\\(dq\" .",
                "\\&.starts with a dot \\e and a backslash, e.g.\\& here, \\[u2014] there.", "Next.",
                ".Sh FACTS", ".Bl -tag -width Ds", ".It Sy ssid", "the name,", ".Ql \"a | b\"", ".El",
                ".Bl -bullet", ".It", "one more", ".It", "two", ".El",
                ".Bd -literal -offset indent", "indented code", ".Ed",
            ])
    }

    // MARK: Helpers

    /// `netrules` with `arguments` and `--help`, on a screen too wide to wrap anything.
    static func help(_ arguments: [String]) async throws -> String {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: arguments + ["--help"], stdout: out, stderr: err, environment: ["COLUMNS": "10000"],
            loop: .testLoop)
        try #require(code == 0, "netrules \(arguments.joined(separator: " ")) --help: \(err.text)")
        return out.text
    }

    /// The paragraphs of a help text's OVERVIEW: the abstract, then the discussion's.
    static func overview(of help: String) -> [String] {
        guard let start = help.range(of: "OVERVIEW: "), let end = help.range(of: "\n\nUSAGE: ") else { return [] }
        return help[start.upperBound..<end.lowerBound].components(separatedBy: "\n\n")
    }

    /// The labelled lines of one section of a help text.
    static func entries(of help: String, section: String) -> [(label: String, description: String)] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: Substring(section + ":")) else { return [] }
        var entries: [(label: String, description: String)] = []
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("  "), !line.hasPrefix("  See '") else { break }
            if line.hasPrefix(String(repeating: " ", count: 26)), !entries.isEmpty {
                entries[entries.count - 1].description = line.trimmingCharacters(in: .whitespaces)
                continue
            }
            // The description starts at column 26, after at least one space; a longer label has it on the next line.
            let characters = Array(line)
            if characters.count > 26, characters[25] == " " {
                entries.append(
                    (
                        String(characters[2..<26]).trimmingCharacters(in: .whitespaces),
                        String(characters[26...]).trimmingCharacters(in: .whitespaces)
                    ))
            } else {
                entries.append((line.trimmingCharacters(in: .whitespaces), ""))
            }
        }
        return entries
    }

    /// The rendered page cut at its subsection headings (three spaces in, in mandoc's terminal output), each
    /// normalised; the text before the first one is under "".
    static func subsections(ofRendered page: String) -> [String: String] {
        // Bold and underlined letters are overstruck: "x\bx" and "_\bx".
        var plain = ""
        for character in page {
            if character == "\u{8}" { plain.removeLast() } else { plain.append(character) }
        }
        var sections: [String: [Substring]] = [:]
        var current = ""
        for line in plain.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("   "), !line.hasPrefix("    ") {
                current = line.trimmingCharacters(in: .whitespaces)
                continue
            }
            sections[current, default: []].append(line)
        }
        return sections.mapValues { normalised($0.joined(separator: "\n")) }
    }

    static func normalised(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func mandoc(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(mandoc))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
