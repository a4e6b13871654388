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
        .object([
            ("name", .string(name)), ("status", .string(status.rawValue)), ("detail", .string(detail)),
            ("fix", fix.map(JSONValue.string) ?? .null),
        ])
    }

    /// `warning  networkmanager: NetworkManager is not on the system bus. Fix: …`
    ///
    /// Details quote what the system and the rules hold (paths, plugin names, interface names), so
    /// the line goes through ``TerminalText``.
    var text: String {
        let label = status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        return TerminalText.escaped("\(label) \(name): \(detail)" + (fix.map { ". Fix: \($0)" } ?? ""))
    }
}

extension String {
    fileprivate func padding(toLength length: Int, withPad pad: String, startingAt _: Int) -> String {
        count >= length ? self : self + String(repeating: pad, count: length - count)
    }
}
