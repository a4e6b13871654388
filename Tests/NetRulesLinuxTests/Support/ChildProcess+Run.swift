import NetRulesSystem

extension ChildProcess {
    /// Runs `argv` (its program looked up in `PATH`) to its end with our environment and stderr, and
    /// returns its exit status (128 + N for signal N) and standard output.
    /// - Throws: `SystemCallError` when it cannot be started.
    static func run(_ argv: [String]) throws -> (status: Int32, output: String) {
        let name = argv[0]
        let process = ChildProcess(
            executablePath: name.contains("/") ? name : (lookUp(name) ?? name),
            arguments: argv.map { Array($0.utf8) }, environment: inheritedEnvironment, timeout: nil,
            outputLimit: .max, standardErrorPassesThrough: true)
        let outcome = try process.runBlocking().get()
        return (outcome.shellStatus, String(decoding: outcome.standardOutput.bytes, as: UTF8.self))
    }
}
