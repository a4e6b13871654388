import FoundationEssentials
import Glibc
import NetRulesCLI

let code = await NetRulesCommandLine.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    stdout: StandardOutputSink.standardOutput,
    stderr: StandardOutputSink.standardError,
    environment: ProcessInfo.processInfo.environment
)
exit(code)
