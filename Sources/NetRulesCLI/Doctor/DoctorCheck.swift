import NetRulesCore

/// One line of `netrules doctor`: what was checked, how it stands, and the fix in one sentence.
struct DoctorCheck: Sendable {
    enum Status: String, Sendable {
        case ok
        case warning
        case error
    }

    var name: String
    var status: Status
    var detail: String
    var fix: String?
    /// What the check adds to its `--json` object after `fix`, for scripts (the `reload` check's
    /// `failed_reload`); text shows only `detail`.
    var members: [(String, JSONValue)] = []

    static func ok(_ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .ok, detail: detail, fix: nil)
    }

    static func warning(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .warning, detail: detail, fix: fix)
    }

    static func error(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .error, detail: detail, fix: fix)
    }

    var json: JSONValue {
        let fields: [(String, JSONValue)] = [
            ("name", .string(name)), ("status", .string(status.rawValue)), ("detail", .string(detail)),
            ("fix", fix.map(JSONValue.string) ?? .null),
        ]
        return .object(fields + members)
    }

    /// `warning  networkmanager: NetworkManager is not on the system bus. Fix: …`
    ///
    /// Details quote what the system and the rules hold (paths, plugin names, interface names), so
    /// the line goes through ``TerminalText``.
    var text: String { text(style: .plain, width: .max) }

    /// ``text`` wrapped to `width` columns (continuation lines under the name) with the status in
    /// colour when `style` has it; the colour goes around the label only, after escaping.
    func text(style: TerminalStyle, width: Int) -> String {
        // `warning  ` and the rest: the body starts in column 10 on every line.
        let indent = 9
        let body = TerminalText.escaped("\(name): \(detail)" + (fix.map { ". Fix: \($0)" } ?? ""))
        // A floor keeps a silly COLUMNS from wrapping a word per line.
        let lines = width == .max ? [Substring(body)] : body.wrapped(to: max(width, 40) - indent).split(separator: "\n")
        let label =
            style.paint(severity: status.rawValue) + String(repeating: " ", count: indent - status.rawValue.count)
        return ([label + (lines.first ?? "")] + lines.dropFirst().map { String(repeating: " ", count: indent) + $0 })
            .joined(separator: "\n")
    }
}
