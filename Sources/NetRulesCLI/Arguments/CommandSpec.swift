/// The declaration of a command: its name, help, arguments, options and subcommands.
///
/// A tree of these describes the whole command line. The tree is plain data so that every command can be declared
/// next to its implementation and assembled by the tool's entry point, and so that tests can build small trees.
package struct CommandSpec: Sendable {
    /// The name typed on the command line; for the root, the tool's name (`netrules`).
    package var name: String

    /// The one-sentence summary shown after `OVERVIEW:` and in the parent's SUBCOMMANDS section.
    package var abstract: String

    /// Optional longer text shown below the overview, wrapped to the terminal width.
    ///
    /// Line breaks in it are kept, so paragraphs may be separated with a blank line.
    package var discussion: String?

    /// The positional arguments, in the order they bind and are shown.
    package var arguments: [ArgumentSpec]

    /// The options and flags, in the order they are shown; `--help` (and `--version` on the root) follow them.
    package var options: [OptionSpec]

    /// The subcommands, in the order they are shown.
    ///
    /// A command with subcommands and no arguments of its own treats its first positional value as a subcommand
    /// name, and shows its help when invoked without one.
    package var subcommands: [CommandSpec]

    /// Creates the declaration of a command.
    ///
    /// - Parameters:
    ///   - name: The name typed on the command line.
    ///   - abstract: The one-sentence summary.
    ///   - discussion: Optional longer help text.
    ///   - arguments: The positional arguments in binding order.
    ///   - options: The options and flags in display order.
    ///   - subcommands: The subcommands in display order.
    package init(
        name: String,
        abstract: String,
        discussion: String? = nil,
        arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [],
        subcommands: [CommandSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
    }

    /// Returns the direct subcommand with the given name, if there is one.
    ///
    /// - Parameter name: The subcommand's name as typed on the command line.
    /// - Returns: The subcommand, or `nil` if this command has none of that name.
    package func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}
