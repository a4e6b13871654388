import NetRulesCore
import NetRulesDaemon
package import NetRulesSystem

extension ArgumentParser {
    /// Runs a command line: parses `arguments`, answers `--version` and help, and hands a parsed
    /// command to `body`, mapping what it throws to the documented exit codes (STYLE §22). The one
    /// driver of `netrules` and `netrules-bench`, so both say errors the same way.
    ///
    /// - Parameter body: Runs the parsed command and returns its exit code, or nil when the command
    ///   line names no command to run (its help is printed then).
    package func run(
        _ arguments: [String], stdout: any TextOutputSink, stderr: any TextOutputSink, environment: [String: String],
        loop: ThreadExecutor, _ body: (ParsedArguments, CommandIO) async throws -> Int32?
    ) async -> Int32 {
        let outcome: ParseOutcome
        do {
            outcome = try parse(arguments)
        } catch {
            stderr.write(errorText(error))
            return ExitCode.usage
        }
        let io = CommandIO(stdout: stdout, stderr: stderr, environment: environment, loop: loop)
        let width = TerminalWidth.current(environment: environment)
        switch outcome {
        case .version:
            stdout.write(versionText)
            return ExitCode.success
        case .help(let path):
            stdout.write(helpText(for: path, width: width))
            return ExitCode.success
        case .run(let parsed):
            do {
                guard let code = try await body(parsed, io) else {
                    stdout.write(helpText(for: parsed.commandPath, width: width))
                    return ExitCode.success
                }
                return code
            } catch let error as UsageError {
                stderr.write(errorText(error))
                return ExitCode.usage
            } catch CommandError.runtime(let message) {
                io.printError("Error: " + TerminalText.escapedLines(message))
                return ExitCode.failure
            } catch CommandError.noInput(let message) {
                io.printError("Error: " + TerminalText.escapedLines(message))
                return ExitCode.noInput
            } catch let error as RuleFiles.ReadError {
                io.printError("Error: " + TerminalText.escapedLines("\(error)"))
                return ExitCode.noInput
            } catch {
                io.printError("Error: " + TerminalText.escapedLines("\(error)"))
                return ExitCode.failure
            }
        }
    }
}
