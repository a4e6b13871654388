/// The result of a successful parse: which command to run and the values given to it.
///
/// Values are looked up by the names used in the specs (an option's `long` name, an argument's `name`), so a
/// command reads exactly what it declared. Options of parent commands given before the subcommand's name are
/// included too. Asking for a name that no command on ``commandPath`` declares is a programming error and trips an
/// assertion in debug builds, which catches typos that a type-checked parser would have caught at compile time.
///
/// It is `Equatable` so tests can compare whole outcomes.
package struct ParsedArguments: Sendable, Equatable {
    /// The names of the commands from the root to the one to run, for example `["netrules", "simulate"]`.
    package var commandPath: [String]

    /// The values given to each value-taking option, in command-line order, keyed by long name.
    var optionValues: [String: [String]]

    /// How many times each flag was given, keyed by long name.
    var flagCounts: [String: Int]

    /// The values bound to each positional argument, keyed by argument name.
    var positionalValues: [String: [String]]

    /// The default value of each option that declares one, keyed by long name.
    var defaultValues: [String: String]

    /// Every option and argument name declared along ``commandPath``, used only to catch lookup typos.
    var declaredNames: Set<String>

    /// Whether the flag (or option) was given at least once.
    ///
    /// - Parameter long: The option's long name without dashes, for example `"json"`.
    /// - Returns: `true` if it appeared on the command line.
    package func flag(_ long: String) -> Bool {
        assertDeclared(long)
        return flagCounts[long, default: 0] > 0 || optionValues[long] != nil
    }

    /// How many times the flag was given, for flags that count (`-vvv`).
    ///
    /// - Parameter long: The flag's long name without dashes.
    /// - Returns: The number of occurrences, 0 when absent.
    package func count(_ long: String) -> Int {
        assertDeclared(long)
        return flagCounts[long, default: 0] + (optionValues[long]?.count ?? 0)
    }

    /// The value of an option: the last one given, or else its default.
    ///
    /// The last value wins for a non-repeating option given twice, as in swift-argument-parser, so a wrapper script
    /// can set a value that the user overrides by appending the option again.
    ///
    /// - Parameter long: The option's long name without dashes, for example `"timeline"`.
    /// - Returns: The last value given, the declared default, or `nil`.
    package func value(_ long: String) -> String? {
        assertDeclared(long)
        return optionValues[long]?.last ?? defaultValues[long]
    }

    /// Every value given to an option, in command-line order, or else its default as the only value.
    ///
    /// - Parameter long: The option's long name without dashes, for example `"tag"`.
    /// - Returns: The values given; `[default]` when none were given and a default exists; otherwise `[]`.
    package func values(_ long: String) -> [String] {
        assertDeclared(long)
        if let given = optionValues[long] {
            return given
        }
        return defaultValues[long].map { [$0] } ?? []
    }

    /// All values bound to a positional argument.
    ///
    /// - Parameter name: The argument's name as declared, for example `"rules"`.
    /// - Returns: The bound values: one for a plain argument, any number for a repeating one, none when an optional
    ///   argument was left out.
    package func positional(_ name: String) -> [String] {
        assertDeclared(name)
        return positionalValues[name] ?? []
    }

    private func assertDeclared(_ name: String) {
        assert(
            declaredNames.contains(name),
            "'\(name)' is not declared by any command on \(commandPath.joined(separator: " "))"
        )
    }
}
