extension OptionSpec {
    /// The built-in `-h, --help` flag, shown last in every command's OPTIONS section.
    static let builtInHelp = OptionSpec(long: "help", short: "h", help: "Show help information.")

    /// The built-in `--version` flag, shown on the root command just before `--help`.
    static let builtInVersion = OptionSpec(long: "version", help: "Show the version.")

    /// The option as spelled with the given name, with its value placeholder: `-t <file>`, `--json`.
    ///
    /// Error messages quote the option the way the user typed it, as swift-argument-parser does.
    func synopsis(spelledAs name: String) -> String {
        guard let valueName else { return name }
        return "\(name) <\(valueName)>"
    }

    /// The option in the usage line: `--timeline <file>`, `[--json]`, `[--tag <tag> ...]`.
    var usageSynopsis: String {
        var synopsis = synopsis(spelledAs: "--\(long)")
        if isRepeating {
            synopsis += " ..."
        }
        return isRequired ? synopsis : "[\(synopsis)]"
    }

    /// The label in the OPTIONS section: `-t, --timeline <file>`.
    var helpLabel: String {
        let names = [short.map { "-\($0)" }, "--\(long)"].compactMap { $0 }
        return synopsis(spelledAs: names.joined(separator: ", "))
    }

    /// The description in the OPTIONS section: the help text plus `(values: …; default: …)`.
    var helpDescription: String {
        let values = allowedValues.flatMap { $0.isEmpty ? nil : $0.joined(separator: ", ") }
        let suffix: String? =
            switch (values, defaultValue) {
            case (nil, nil): nil
            case (let values?, nil): "(values: \(values))"
            case (nil, let defaultValue?): "(default: \(defaultValue))"
            case (let values?, let defaultValue?): "(values: \(values); default: \(defaultValue))"
            }
        return [help, suffix].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The `Help:` reminder for errors about this option, as typed with `name`.
    func helpLine(spelledAs name: String) -> String? {
        help.isEmpty ? nil : "\(synopsis(spelledAs: name))  \(help)"
    }
}
