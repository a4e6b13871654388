/// The declaration of one named option or flag of a command.
///
/// An option with a `valueName` takes a value (`--timeline <file>`, `--timeline=<file>`, `-t <file>`, `-t<file>`);
/// one without is a flag (`--json`, `-v`). The parser derives both the accepted spellings and the help line from this
/// one declaration, so what `--help` shows can never drift from what the parser accepts.
///
/// The names `--help`, `-h` and, on the root command, `--version` are reserved: the parser adds them itself.
package struct OptionSpec: Sendable {
    /// The long name without its dashes, in kebab-case.
    ///
    /// `"timeline"` is spelled `--timeline` on the command line. It is also the key under which
    /// ``ParsedArguments`` reports the option.
    package var long: String

    /// The optional one-letter name, spelled `-c` on the command line.
    ///
    /// Short flags combine (`-vq`), and a value-taking short option may end a group
    /// (`-vc 3`, `-vc3`).
    package var short: Character?

    /// The name of the option's value, shown as `<value-name>`; `nil` makes the option a flag.
    ///
    /// A flag takes no value, and `--flag=value` is a usage error.
    package var valueName: String?

    /// The one-sentence description shown in the OPTIONS section of the help.
    ///
    /// Write it as a sentence ending with a full stop; the renderer appends `(default: …)` and `(values: …)` itself.
    package var help: String

    /// The value used when the option is not given, shown as `(default: …)` in the help.
    ///
    /// ``ParsedArguments/value(_:)`` returns it when the option is absent.
    package var defaultValue: String?

    /// The only values the option accepts, shown as `(values: a, b)` in the help.
    ///
    /// Any other value is a usage error that lists the accepted ones. `nil` accepts every value.
    package var allowedValues: [String]?

    /// Whether the option may be given several times, its values accumulating.
    ///
    /// A non-repeating option may still be given twice; the last value wins, as in swift-argument-parser.
    /// The usage line shows a repeating option as `[--tag <tag> ...]`.
    package var isRepeating: Bool

    /// Whether the command refuses to run without this option.
    ///
    /// A required option is shown without brackets in the usage line, and leaving it out is the usage error
    /// `Missing expected argument '--timeline <file>'`.
    package var isRequired: Bool

    /// Other long names the parser also accepts, without their dashes; neither help nor completions show them.
    ///
    /// An alias keeps an older spelling working after a rename (`--control-socket` for `--socket`). The parser
    /// reports the option under ``long`` whichever spelling was typed.
    package var aliases: [String]

    /// Creates the declaration of an option or flag.
    ///
    /// - Parameters:
    ///   - long: The long name without dashes, for example `"timeline"`.
    ///   - short: The optional one-letter name, for example `"t"`.
    ///   - valueName: The value's name shown as `<value-name>`, or `nil` for a flag.
    ///   - help: The one-sentence description shown in the help.
    ///   - defaultValue: The value used when the option is absent.
    ///   - allowedValues: The only values accepted, or `nil` for any value.
    ///   - isRepeating: Whether the option may be given several times, values accumulating.
    ///   - isRequired: Whether leaving the option out is a usage error.
    ///   - aliases: Older long names the parser still accepts.
    package init(
        long: String,
        short: Character? = nil,
        valueName: String? = nil,
        help: String,
        defaultValue: String? = nil,
        allowedValues: [String]? = nil,
        isRepeating: Bool = false,
        isRequired: Bool = false,
        aliases: [String] = []
    ) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.allowedValues = allowedValues
        self.isRepeating = isRepeating
        self.isRequired = isRequired
        self.aliases = aliases
    }

    /// Whether `name` (without dashes) spells this option: its long name or one of its aliases.
    package func isSpelled(_ name: String) -> Bool {
        long == name || aliases.contains(name)
    }

    /// Whether the option takes a value rather than being a flag.
    ///
    /// This is derived from ``valueName`` so the two can never disagree.
    package var takesValue: Bool { valueName != nil }
}
