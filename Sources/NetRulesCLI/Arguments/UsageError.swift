/// A command line that the parser rejects.
///
/// The message uses swift-argument-parser's wording (`Unknown option '--jsn'. Did you mean '--json'?`,
/// `Missing expected argument '<rules>'`, …) so that netrules reads like every other Swift tool.
/// Render it with ``ArgumentParser/errorText(_:)``, write it to standard error, and exit with ``exitCode``.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exit status for a usage error, `EX_USAGE` from sysexits(3), as swift-argument-parser uses.
    package static let exitCode: Int32 = 64

    /// The one-line description of what is wrong, without the `Error: ` prefix.
    package var message: String

    /// The command whose usage the error concerns, for example `["netrules", "simulate"]`.
    ///
    /// The error text shows that command's usage line and points at its `--help`.
    package var commandPath: [String]

    /// The reminder of the option or argument involved, such as `--timeline <file>  The timeline to replay.`
    ///
    /// swift-argument-parser prints it as a `Help:  …` line for missing and invalid values; `nil` when the error
    /// concerns no single declared option or argument.
    package var helpLine: String?

    /// Creates a usage error.
    ///
    /// - Parameters:
    ///   - message: The description of what is wrong, without the `Error: ` prefix.
    ///   - commandPath: The command whose usage the error concerns.
    ///   - helpLine: The optional reminder of the option or argument involved.
    package init(message: String, commandPath: [String], helpLine: String? = nil) {
        self.message = message
        self.commandPath = commandPath
        self.helpLine = helpLine
    }

    /// The message alone, so that an unhandled usage error still prints something meaningful.
    package var description: String { message }
}
