/// Whom a `run:` or plugin action runs as (`user:`); without one it runs as the daemon.
public enum ActionUser: Hashable, Sendable, CustomStringConvertible {
    /// `user: NAME`: that account, checked to exist when the rules are loaded.
    case named(String)
    /// `user: active`: the user of the active local graphical session (logind) when the action
    /// starts; with none, the action is skipped.
    case activeSession

    /// Reads a `user:` value: `active`, or an account's name.
    public init(_ text: String) {
        self = text == "active" ? .activeSession : .named(text)
    }

    /// `active` or the name, as written.
    public var description: String {
        switch self {
        case .named(let name): name
        case .activeSession: "active"
        }
    }
}
