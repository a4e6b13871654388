/// The declaration of one positional argument of a command.
///
/// Positional arguments bind in declaration order. A repeating argument takes every value that later required
/// arguments do not need, so `<sources> ... <destination>` works as users expect.
package struct ArgumentSpec: Sendable {
    /// The argument's name, shown as `<name>` (or `<name> ...` when repeating).
    ///
    /// It is also the key under which ``ParsedArguments/positional(_:)`` reports the bound values.
    package var name: String

    /// The one-sentence description shown in the ARGUMENTS section of the help.
    package var help: String

    /// Whether the command may run without this argument; the usage line shows it in brackets.
    package var isOptional: Bool

    /// Whether the argument takes every remaining value rather than exactly one.
    package var isRepeating: Bool

    /// What the shell completion scripts offer for the argument.
    package var completion: Completion

    /// The values a shell may offer for a positional argument.
    package enum Completion: Sendable, Equatable {
        /// Nothing: the value is free text (a host name, a URL).
        case none
        /// File and directory names.
        case files
        /// One of these words.
        case words([String])
        /// The running daemon's rule names.
        case ruleNames
    }

    /// Creates the declaration of a positional argument.
    ///
    /// - Parameters:
    ///   - name: The argument's name, shown as `<name>`.
    ///   - help: The one-sentence description shown in the help.
    ///   - isOptional: Whether the command may run without it.
    ///   - isRepeating: Whether it takes every remaining value.
    ///   - completion: What the shell completion scripts offer for it (nothing unless said).
    package init(
        name: String, help: String, isOptional: Bool = false, isRepeating: Bool = false,
        completion: Completion = .none
    ) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeating = isRepeating
        self.completion = completion
    }
}
