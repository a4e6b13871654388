import FoundationEssentials
import Glibc
import NetRulesCLI

// Synchronous on purpose: an async main would run on Dispatch's main queue; this thread runs the
// program's tasks itself (see `runOnCurrentThread`).
let code = NetRulesCommandLine.runOnCurrentThread(
    arguments: Array(CommandLine.arguments.dropFirst()),
    stdout: StandardOutputSink.standardOutput,
    stderr: StandardOutputSink.standardError,
    environment: ProcessInfo.processInfo.environment
)
exit(code)
