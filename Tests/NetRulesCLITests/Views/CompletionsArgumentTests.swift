import Foundation
import NetRulesCore
import NetRulesSystem
import Testing

@testable import NetRulesCLI

/// What the completion scripts offer for positional arguments (issue 24, item 15) and where the
/// rule names come from (item 7): files only where a command takes files, and the names of the
/// daemon `--socket` or `--state-dir` on the line names.
@Suite(.timeLimit(.minutes(1)))
struct CompletionsArgumentTests {
    /// The directory of the built `netrules`, which the scripts call for rule names.
    static let binaries = CommandTests.root.appendingPathComponent(".build/debug").path

    static func script(_ shell: String) async throws -> URL {
        let r = await CommandTests.run("completions", shell)
        let file = URL(fileURLWithPath: ControlFixture.makeTemporaryDirectory() + "/netrules." + shell)
        try r.stdout.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Runs `command` in `sh -c` in `directory` on a thread of its own (so an in-process fake daemon
    /// keeps the pool) and returns its stdout.
    static func shell(_ command: String, in directory: String) async throws -> String {
        let output = directory + "/completion.out"
        let status = try await DedicatedThread.spawnAndWait {
            system("cd '\(directory)' && PATH='\(binaries):/usr/bin:/bin' \(command) > '\(output)' 2>&1")
        }
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(status == 0, "\(command): \(text)")
        return text
    }

    /// bash's `COMPREPLY` for `words` (the last one is being completed) in a directory holding `a.yaml`.
    static func bash(_ words: [String], socket: String? = nil) async throws -> String {
        let file = try await script("bash")
        let directory = file.deletingLastPathComponent().path
        try Data().write(to: URL(fileURLWithPath: directory + "/a.yaml"))
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        return try await shell(
            "bash -c 'source \(file.path); COMP_WORDS=(\(quoted.replacing("'", with: "\"")));"
                + " COMP_CWORD=\(words.count - 1); _netrules; echo \"${COMPREPLY[*]}\"'", in: directory)
    }

    @Test func everyCommandsArgumentsSayWhatTheyComplete() {
        var kinds: [String: ArgumentSpec.Completion] = [:]
        for command in NetRulesCommandLine.root.subcommands {
            kinds[command.name] = ShellCompletions.argumentCompletion(command)
        }
        #expect(kinds["status"] == ArgumentSpec.Completion.none)
        #expect(kinds["completions"] == .words(["bash", "zsh", "fish"]))
        #expect(kinds["explain"] == .ruleNames)
        #expect(kinds["ping"] == ArgumentSpec.Completion.none)
        for command in ["check", "simulate", "run", "facts", "doctor"] {
            #expect(kinds[command] == .files, "\(command)")
        }
    }

    @Test func bashOffersNoFilesWhereACommandTakesNone() async throws {
        #expect(try await Self.bash(["netrules", "status", ""]) == "\n")
        #expect(try await Self.bash(["netrules", "completions", ""]) == "bash zsh fish\n")
        #expect(try await Self.bash(["netrules", "reload", ""]) == "\n")
        #expect(try await Self.bash(["netrules", "check", ""]).contains("a.yaml"))
        #expect(try await Self.bash(["netrules", "history", "--since", ""]) == "\n")
    }

    @Test func ruleNamesComeFromTheDaemonTheLineNames() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binaries + "/netrules") else {
            Issue.record("SKIPPED: no built netrules at \(Self.binaries) for the scripts to call")
            return
        }
        let fixture = try await ControlFixture.start(ControlServerTests.fake())
        #expect(try await Self.bash(["netrules", "explain", "--socket", fixture.path, "of"]) == "office\n")
        #expect(
            try await Self.bash(["netrules", "history", "--state-dir", fixture.directory, "--rule", ""]) == "office\n")
        // Without the options the default socket is asked, where no daemon runs in a test.
        #expect(try await Self.bash(["netrules", "explain", "of"]) == "\n")
        let fish = try await Self.script("fish")
        let fished = try await Self.shell(
            "fish -c 'source \(fish.path); complete -C \"netrules explain --socket \(fixture.path) of\"'",
            in: fish.deletingLastPathComponent().path)
        #expect(fished == "office\n")
        try await fixture.stop()
    }
}
