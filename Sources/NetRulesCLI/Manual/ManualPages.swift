/// The manual pages of netrules, as mdoc(7) source.
///
/// docs/man/ holds the generated pages; a test regenerates them and compares, so they follow the command
/// specification and docs/rules.md. `scripts/package` installs them.
package enum ManualPages {
    /// The file name of the command reference.
    package static let commandReferenceName = "netrules.1"

    /// The file name of the rule language page.
    package static let ruleLanguageName = "netrules-rules.5"

    /// `netrules.1`: every command with its usage, arguments and options, in the words of `--help`.
    package static var commandReference: String {
        ManualPage.commandReference(root: NetRulesCommandLine.root).source
    }

    /// `netrules-rules.5`: the rule language.
    ///
    /// - Parameter markdown: The text of docs/rules.md.
    /// - Returns: The page's mdoc source.
    package static func ruleLanguage(markdown: String) -> String {
        ManualPage.converted(
            markdown: markdown, name: "netrules-rules", section: "5",
            description: "the netrules rule language, version 1",
            seeAlso: ManualText(
                plain: """
                    and, in /usr/share/doc/netrules (or docs/ in the sources), security.md on who may write rules \
                    and how values are quoted, plugins.md on observer and action plugins.
                    """)
        ).source
    }
}
