import NetRulesCore

/// Whether one output stream shows colour, and the one place colour escapes are made.
///
/// Decided once per stream when a command starts (``CommandIO`` holds one for stdout and one for
/// stderr), never by a scattered `isatty`: colour is on when the stream is a terminal, off when
/// it is not or when `NO_COLOR` is set to anything non-empty (no-color.org), and on regardless of
/// the stream when `CLICOLOR_FORCE` is set to anything but `0` (for `less -R`, and for tests).
/// `NO_COLOR` wins over `CLICOLOR_FORCE`. There is no `--color` option: the two variables say the
/// same without an option on every command.
///
/// Colour is only ever put around a ``Shown`` text, which is either a word netrules writes itself
/// or text that went through ``TerminalText``: an SSID cannot close the colour and open its own.
package struct TerminalStyle: Sendable, Equatable {
    /// What a coloured word means.
    package enum Role: Sendable {
        /// `error`, a failure, a verdict that is bad (`offline`, `unreachable`, `away`): red.
        case bad
        /// `warning`, an in-between verdict (`portal`, `claimed`): yellow.
        case caution
        /// `ok`, a verdict that is good (`online`, `reachable`, `here`): green.
        case good
        /// The `enter` edge: bold green.
        case enter
        /// The `exit` edge: bold yellow.
        case exit

        var sgr: String {
            switch self {
            case .bad: "31"
            case .caution: "33"
            case .good: "32"
            case .enter: "1;32"
            case .exit: "1;33"
            }
        }
    }

    /// Text that may be coloured: a word netrules defines, or text made safe by ``TerminalText``.
    package struct Shown: Sendable {
        package let text: String
        /// A word or message netrules writes itself (`error`, `enter`, `online`).
        package init(word: StaticString) { text = "\(word)" }
        /// Any text, escaped by ``TerminalText`` first.
        package init(escaping text: some StringProtocol) { self.text = TerminalText.escaped(text) }
        /// Text the caller has already passed through ``TerminalText`` (a composed line).
        package init(alreadyEscaped text: String) { self.text = text }
    }

    /// Whether colour escapes are written.
    package let isEnabled: Bool

    /// No colour: pipes, files and tests.
    package static let plain = TerminalStyle(isEnabled: false)
    /// Colour on, whatever the stream is.
    package static let colored = TerminalStyle(isEnabled: true)

    /// The decision for one stream.
    ///
    /// - Parameters:
    ///   - environment: the process environment (`NO_COLOR`, `CLICOLOR_FORCE`).
    ///   - isTerminal: whether the stream is a terminal.
    package static func decide(environment: [String: String], isTerminal: Bool) -> TerminalStyle {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .plain }
        if let force = environment["CLICOLOR_FORCE"], !force.isEmpty, force != "0" { return .colored }
        return TerminalStyle(isEnabled: isTerminal)
    }

    /// `text` in the colour of `role`, or as it is when colour is off.
    package func paint(_ text: Shown, _ role: Role) -> String {
        isEnabled && !text.text.isEmpty ? "\u{1B}[\(role.sgr)m\(text.text)\u{1B}[0m" : text.text
    }

    /// An edge, coloured by direction.
    package func paint(_ edge: Edge) -> String {
        switch edge {
        case .enter: paint(Shown(word: "enter"), .enter)
        case .exit: paint(Shown(word: "exit"), .exit)
        }
    }

    /// A verdict word (`online`, `portal`, `offline`, `reachable`, `here`, …), escaped, in the
    /// colour its meaning has; a word with no meaning here is shown escaped and uncoloured.
    package func paint(verdict word: String) -> String {
        let shown = Shown(escaping: word)
        guard let role = Self.role(ofVerdict: word) else { return shown.text }
        return paint(shown, role)
    }

    /// The colour of a verdict netrules reports, nil for any other word.
    package static func role(ofVerdict word: String) -> Role? {
        switch word {
        case "online", "reachable", "here", "clear", "up", "ok", "true": .good
        case "portal", "claimed", "limited", "warning", "pending", "unknown": .caution
        case "offline", "unreachable", "away", "detected", "down", "error", "failed", "false": .bad
        default: nil
        }
    }

    /// `error`, `warning` or `ok` as a label, coloured.
    package func paint(severity word: String) -> String { paint(verdict: word) }
}
