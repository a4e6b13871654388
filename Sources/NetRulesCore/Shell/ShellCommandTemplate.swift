/// A `run:` command line: a template read once, at load time, as `/bin/sh` will read it.
///
/// Every placeholder has a `ShellQuotingContext`, and rendering writes each value in the form
/// that makes the shell see exactly its bytes there. Places where no quoting can keep a value
/// data (inside `$(…)`, after `eval`, in a comment, …) are refused by the initializer; see
/// `ShellLexer` for the full list.
public struct ShellCommandTemplate: Hashable, Sendable, CustomStringConvertible {
    /// The template as written.
    public let template: Template
    /// The quoting context of each placeholder, in the order of `template.names`.
    public let contexts: [ShellQuotingContext]
    /// What `check` should warn about (a value that could be read as an option, a value naming a
    /// redirection's file); the command still runs.
    public let warnings: [ShellTemplateIssue]
    /// The command as one program and its arguments, when the shell would do nothing but split
    /// words and remove quotes (see `ShellSimpleCommand`); nil when it needs `/bin/sh -c`.
    public let simpleCommand: ShellSimpleCommand?

    /// Reads `template` as a shell command.
    /// - Parameters:
    ///   - template: the command as written.
    ///   - ruleName: the name of the rule it belongs to, when known: `{{rule}}` at the start of a
    ///     word then draws no "could be read as an option" warning unless the name starts with `-`
    ///     or `+`.
    /// - Throws: `ShellCommandRefusal` with every error (and the warnings) when any placeholder
    ///   stands where it cannot be made safe, or the command is not well-formed shell.
    public init(_ template: Template, ruleName: String? = nil) throws(ShellCommandRefusal) {
        var lexer = ShellLexer(template)
        lexer.ruleNameIsNeverAnOption = Self.ruleNameIsNeverAnOption(ruleName)
        lexer.run()
        let issues = lexer.issues.sorted { $0.offset < $1.offset }
        if issues.contains(where: { $0.severity == .error }) { throw ShellCommandRefusal(issues: issues) }
        self.template = template
        self.contexts = lexer.contexts
        self.warnings = issues
        self.simpleCommand = ShellSimpleCommand(template)
    }

    /// Whether `{{rule}}`, in a rule called `ruleName`, can never be read as an option: the name is
    /// known and starts with neither `-` nor `+`.
    ///
    /// A command's reading depends on its rule's name only through this answer, so two commands
    /// with the same text and the same answer read the same: a loader may read such a text once.
    public static func ruleNameIsNeverAnOption(_ ruleName: String?) -> Bool {
        guard let first = ruleName?.unicodeScalars.first else { return false }
        return first != "-" && first != "+"
    }

    /// Parses the text and reads it as a shell command.
    /// - Throws: `ShellCommandRefusal`, with a template syntax error as its one issue.
    public init(_ source: String) throws(ShellCommandRefusal) {
        let template: Template
        do {
            template = try Template(source)
        } catch {
            throw ShellCommandRefusal(issues: [
                ShellTemplateIssue(.error, error.message, offset: error.offset, hint: error.hint)
            ])
        }
        try self.init(template)
    }

    /// The text as written.
    public var source: String { template.source }

    /// The command line for `/bin/sh -c`, each value rendered for its context.
    public func render(_ context: TemplateContext) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        for segment in template.segments {
            switch segment {
            case .literal(let text):
                out += text.utf8
            case .placeholder(let name):
                out += ShellQuoting.render(context.bytes(for: name), in: contexts[index])
                index += 1
            }
        }
        return out
    }

    /// The command as written in the rule file.
    public var description: String { template.source }
}

/// Why a `run:` command was refused: its errors (and warnings), in source order.
public struct ShellCommandRefusal: Error, Hashable, Sendable {
    /// Every issue found, errors and warnings, in source order.
    public var issues: [ShellTemplateIssue]

    /// Creates a refusal from the issues found.
    public init(issues: [ShellTemplateIssue]) {
        self.issues = issues
    }
}
