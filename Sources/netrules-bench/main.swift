import FoundationEssentials
import Glibc
import NetRulesBench
import NetRulesCLI

// Synchronous on purpose, as `netrules` is: this thread runs the program's tasks itself.
let code = NetRulesCommandLine.runOnCurrentThread(stderr: StandardOutputSink.standardError) { loop in
    await BenchCommandLine.run(
        arguments: Array(CommandLine.arguments.dropFirst()),
        stdout: StandardOutputSink.standardOutput,
        stderr: StandardOutputSink.standardError,
        environment: ProcessInfo.processInfo.environment,
        loop: loop
    )
}
exit(code)
