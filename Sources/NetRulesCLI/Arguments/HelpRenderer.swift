/// Renders the help text and usage line of one command, in swift-argument-parser's layout.
///
/// Users read help from many Swift tools, so the layout copies argument-parser's to the character: the
/// `OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS` sections, a 2-space indent, descriptions starting at
/// column 26 (on the next line when the label is too long), and its word wrapping.
struct HelpRenderer {
    /// The indentation of every label.
    static let indent = 2

    /// The column where descriptions start.
    static let descriptionColumn = 26

    /// The narrowest width rendered; narrower requests are widened to it.
    ///
    /// Descriptions start at column 26, so a narrower screen would leave them almost no room (argument-parser
    /// traps in debug builds when the width does not exceed the column at all).
    static let minimumWidth = 40

    /// swift-argument-parser's threshold above which the usage line abbreviates optional options to `[<options>]`.
    static let usageElementLimit = 12

    /// The commands from the root down to the one being rendered.
    var stack: [CommandSpec]

    private var command: CommandSpec { stack[stack.count - 1] }

    private var isRoot: Bool { stack.count == 1 }

    /// The command's name as typed, for example `netrules simulate`.
    var commandName: String {
        stack.map(\.name).joined(separator: " ")
    }

    /// The usage line without the `USAGE: ` prefix: `netrules simulate <rules> --timeline <file> [--json]`.
    ///
    /// Arguments come first, then options, each in declaration order; `--help` and `--version` are left out, as in
    /// argument-parser.
    var usage: String {
        let arguments = command.arguments.map(\.usageSynopsis)
        let options = command.options.map(\.usageSynopsis)
        var line = commandName
        if arguments.count + options.count > Self.usageElementLimit {
            // Too many to read at a glance: keep what the user must type and abbreviate the rest, as argument-parser.
            let kept = arguments + command.options.filter(\.isRequired).map(\.usageSynopsis)
            if !kept.isEmpty, kept.count <= Self.usageElementLimit {
                line += " [<options>] " + kept.joined(separator: " ")
            } else {
                line += " <options>"
            }
        } else if !(arguments + options).isEmpty {
            line += " " + (arguments + options).joined(separator: " ")
        }
        if !command.subcommands.isEmpty {
            line += " <subcommand>"
        }
        return line
    }

    /// The complete help text, ending with a newline, ready to write to standard output.
    ///
    /// The text is what argument-parser prints, including its final `print` newline; so a command without
    /// subcommands ends with a blank line, as argument-parser's does.
    ///
    /// - Parameter width: The screen width; widths below ``minimumWidth`` are widened to it.
    func render(width requestedWidth: Int) -> String {
        let width = max(requestedWidth, Self.minimumWidth)
        var overview = command.abstract
        if let discussion = command.discussion, !discussion.isEmpty {
            if !overview.isEmpty {
                overview += "\n"
            }
            overview += "\n" + discussion
        }
        var text = ""
        if !overview.isEmpty {
            text += "OVERVIEW: \(overview)".wrapped(to: width) + "\n\n"
        }
        text += "USAGE: \(usage)\n\n"
        text += sections.filter { !$0.elements.isEmpty }
            .map { section in
                section.title + ":\n" + section.elements.map { $0.rendered(width: width) }.joined()
            }
            .joined(separator: "\n")
        if !command.subcommands.isEmpty {
            var names = stack.map(\.name)
            names.insert("help", at: 1)
            text += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help."
        }
        return text + "\n"
    }

    private var sections: [(title: String, elements: [Element])] {
        let builtIns = isRoot ? [OptionSpec.builtInVersion, .builtInHelp] : [.builtInHelp]
        return [
            ("ARGUMENTS", command.arguments.map { Element(label: $0.helpLabel, description: $0.help) }),
            (
                "OPTIONS",
                (command.options + builtIns).map { Element(label: $0.helpLabel, description: $0.helpDescription) }
            ),
            ("SUBCOMMANDS", command.subcommands.map { Element(label: $0.name, description: $0.abstract) }),
        ]
    }

    /// One labelled line (or more, once wrapped) of a section.
    private struct Element {
        var label: String
        var description: String

        func rendered(width: Int) -> String {
            let paddedLabel = String(repeating: " ", count: HelpRenderer.indent) + label
            guard !description.isEmpty else {
                return paddedLabel + "\n"
            }
            let wrapped = description.wrapped(to: width, indent: HelpRenderer.descriptionColumn)
            if paddedLabel.count < HelpRenderer.descriptionColumn {
                // The wrapped text starts with the column's worth of spaces; the label takes their place.
                return paddedLabel + wrapped.dropFirst(paddedLabel.count) + "\n"
            }
            return paddedLabel + "\n" + wrapped + "\n"
        }
    }
}
