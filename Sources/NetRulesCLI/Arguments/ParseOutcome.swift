/// What the command line asks for, when it is not a usage error.
///
/// Help and version requests are outcomes rather than errors because they are successful runs: the caller prints
/// ``ArgumentParser/helpText(for:width:)`` or the version to standard output and exits with status 0.
package enum ParseOutcome: Sendable, Equatable {
    /// Run the command named by the arguments' ``ParsedArguments/commandPath``.
    case run(ParsedArguments)

    /// Print the help of the command at `commandPath` (for example `["netrules", "simulate"]`).
    ///
    /// Produced by `-h` or `--help` anywhere before `--`, by `help SUB …` as the first argument, and by a command
    /// that has subcommands but was given none.
    case help(commandPath: [String])

    /// Print the tool's version (`--version` on the root command).
    case version
}
