import Glibc
import NetRulesCLI

/// The process's environment as names and values, read from `environ(7)` directly: going through
/// FoundationEssentials' `ProcessInfo` first initialises all of it, about 0.5 ms of every
/// command's start. A name that appears twice keeps its first value, as getenv(3) does.
func processEnvironment() -> [String: String] {
    var environment: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            let name = String(text[..<equals])
            if environment[name] == nil { environment[name] = String(text[text.index(after: equals)...]) }
        }
        cursor += 1
    }
    return environment
}

// Synchronous on purpose: an async main would run on Dispatch's main queue; this thread runs the
// program's tasks itself (see `runOnCurrentThread`).
let code = NetRulesCommandLine.runOnCurrentThread(
    arguments: Array(CommandLine.arguments.dropFirst()),
    stdout: StandardOutputSink.standardOutput,
    stderr: StandardOutputSink.standardError,
    environment: processEnvironment()
)
exit(code)
