import NetRulesCore

/// Parses command lines against a tree of ``CommandSpec``s and renders help and usage errors.
///
/// It behaves like swift-argument-parser, which we cannot depend on: long options as `--opt value` or
/// `--opt=value`, short options as `-c 3` or `-c3`, combined short flags (`-vq`, `-vc 3`), `--` to end options,
/// `-h`/`--help` anywhere and `help SUB …` for help, `--version` on the root, and argument-parser's error wording,
/// help layout and "Did you mean" suggestions.
///
/// The intended flow is parse → validate → run:
///
/// ```swift
/// switch try parser.parse(arguments) {
/// case .help(let path): stdout.write(parser.helpText(for: path, width: TerminalWidth.current(environment: env)))
/// case .version: stdout.write(parser.versionText)
/// case .run(let parsed): … dispatch on parsed.commandPath …
/// }
/// // catch let error as UsageError: stderr.write(parser.errorText(error)); exit(UsageError.exitCode)
/// ```
///
/// The parser is an immutable value and safe to share between tasks.
package struct ArgumentParser: Sendable {
    /// The root of the command tree; its name is the tool's name.
    package let root: CommandSpec

    /// The version printed for `--version`.
    package let version: String

    /// Creates a parser for the command tree under `root`.
    ///
    /// Debug builds check the tree for mistakes that would make the command line ambiguous, such as two options
    /// with the same name or an option reusing the built-in `-h`, `--help` or `--version`.
    ///
    /// - Parameters:
    ///   - root: The root command, named after the tool.
    ///   - version: The version printed for `--version`.
    package init(root: CommandSpec, version: String) {
        self.root = root
        self.version = version
        assert(
            Self.specProblems(in: root, isRoot: true).isEmpty,
            "Malformed command tree: \(Self.specProblems(in: root, isRoot: true).joined(separator: "; "))"
        )
    }

    /// Parses a command line.
    ///
    /// - Parameter arguments: The command-line arguments without `argv[0]`.
    /// - Returns: Whether to run a command (with its values), print help, or print the version.
    /// - Throws: A ``UsageError`` with argument-parser's wording when the command line is wrong.
    package func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        var scanner = ArgumentScanner(root: root, arguments: arguments)
        return try scanner.scan()
    }

    /// The help text of a command, wrapped to `width` columns and ending with a newline.
    ///
    /// The text is exactly what argument-parser prints, trailing newline included, so write it unchanged.
    ///
    /// - Parameters:
    ///   - commandPath: The command's path from the root, for example `["netrules", "simulate"]`; names that do not
    ///     match a subcommand end the path there, as with `help SUB …`.
    ///   - width: The screen width, usually ``TerminalWidth/current(environment:)``; widths below 40 are widened to
    ///     40 so descriptions keep some room beside the label column.
    /// - Returns: The rendered help.
    package func helpText(for commandPath: [String], width: Int) -> String {
        HelpRenderer(stack: commandStack(for: commandPath)).render(width: width)
    }

    /// The usage line of a command: `netrules simulate <rules> --timeline <file> [--json]`.
    ///
    /// Arguments come first, then options, each in declaration order. Optional ones are in brackets, repeating ones
    /// end with ` ...`, and a command with subcommands ends with `<subcommand>`.
    ///
    /// - Parameter commandPath: The command's path from the root, for example `["netrules", "simulate"]`.
    /// - Returns: The usage line without a prefix or newline.
    package func usageLine(for commandPath: [String]) -> String {
        HelpRenderer(stack: commandStack(for: commandPath)).usage
    }

    /// The full text to write to standard error for a usage error, ending with a newline.
    ///
    /// ```
    /// Error: Missing expected argument '<rules>'
    /// Help:  <rules>  The rule file to load.
    /// Usage: netrules simulate <rules> --timeline <file> [--json]
    ///   See 'netrules simulate --help' for more information.
    /// ```
    ///
    /// The `Help:` line appears only when the error has a ``UsageError/helpLine``, as in argument-parser.
    ///
    /// - Parameter error: The error thrown by ``parse(_:)``.
    /// - Returns: The rendered error.
    package func errorText(_ error: UsageError) -> String {
        let stack = commandStack(for: error.commandPath)
        let name = stack.map(\.name).joined(separator: " ")
        // The message quotes what was typed, which a script may have taken from anywhere.
        var text = "Error: " + TerminalText.escapedLines(error.message) + "\n"
        if let helpLine = error.helpLine {
            text += "Help:  \(helpLine)\n"
        }
        text += "Usage: \(HelpRenderer(stack: stack).usage)\n"
        text += "  See '\(name) --help' for more information.\n"
        return text
    }

    /// The text to write to standard output for `--version`: the version and a newline.
    package var versionText: String {
        version + "\n"
    }

    /// The commands along `commandPath`, from the root, stopping at the first name that is not a subcommand.
    ///
    /// The first element names the root and is not checked, so paths stay valid if the binary is renamed.
    func commandStack(for commandPath: [String]) -> [CommandSpec] {
        var stack = [root]
        for name in commandPath.dropFirst() {
            guard let next = stack[stack.count - 1].subcommand(named: name) else { break }
            stack.append(next)
        }
        return stack
    }

    /// Declaration mistakes in the tree under `command`, each as a sentence; empty when the tree is sound.
    static func specProblems(in command: CommandSpec, isRoot: Bool) -> [String] {
        var problems: [String] = []
        let reservedLongNames: Set<String> = isRoot ? ["help", "version"] : ["help"]
        var longNames: Set<String> = []
        var shortNames: Set<Character> = ["h"]
        for option in command.options {
            for name in [option.long] + option.aliases
            where reservedLongNames.contains(name) || !longNames.insert(name).inserted {
                problems.append("'\(command.name)' declares '--\(name)' twice or reuses a built-in name")
            }
            if let short = option.short, !shortNames.insert(short).inserted {
                problems.append("'\(command.name)' declares '-\(short)' twice or reuses '-h'")
            }
            if option.valueName == nil, option.allowedValues != nil {
                problems.append("'\(command.name)' flag '--\(option.long)' cannot have allowed values")
            }
            if let defaultValue = option.defaultValue, let allowed = option.allowedValues,
                !allowed.contains(defaultValue)
            {
                problems.append("'\(command.name)' '--\(option.long)' has a default outside its allowed values")
            }
        }
        var argumentNames: Set<String> = []
        for argument in command.arguments where !argumentNames.insert(argument.name).inserted {
            problems.append("'\(command.name)' declares argument '<\(argument.name)>' twice")
        }
        var subcommandNames: Set<String> = []
        for subcommand in command.subcommands {
            if subcommand.name.hasPrefix("-") || !subcommandNames.insert(subcommand.name).inserted {
                problems.append("'\(command.name)' has a duplicate or dash-prefixed subcommand '\(subcommand.name)'")
            }
            problems += specProblems(in: subcommand, isRoot: false)
        }
        return problems
    }
}
