extension ParsedArguments {
    /// A usage error for a value the parser accepted but the command cannot use (`--count 0`, `-W 1e300`).
    ///
    /// It renders and exits like an unknown option: `Error: …`, the command's usage line, its `--help`, 64.
    ///
    /// - Parameter message: What is wrong, without the `Error: ` prefix, naming the option and the value.
    /// - Returns: The error to throw.
    package func invalidValue(_ message: String) -> UsageError {
        UsageError(message: message, commandPath: commandPath)
    }
}
