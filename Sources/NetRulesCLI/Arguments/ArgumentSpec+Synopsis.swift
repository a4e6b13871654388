extension ArgumentSpec {
    /// The argument without optionality brackets: `<rules>`, `<files> ...`.
    ///
    /// This is also how "Missing expected argument" quotes it, as swift-argument-parser does.
    var requiredSynopsis: String {
        isRepeating ? "<\(name)> ..." : "<\(name)>"
    }

    /// The argument in the usage line: `<rules>`, `[<files> ...]`.
    var usageSynopsis: String {
        isOptional ? "[\(requiredSynopsis)]" : requiredSynopsis
    }

    /// The label in the ARGUMENTS section: `<rules>`.
    var helpLabel: String {
        "<\(name)>"
    }

    /// The `Help:` reminder for errors about this argument.
    var helpLine: String? {
        help.isEmpty ? nil : "\(helpLabel)  \(help)"
    }
}
