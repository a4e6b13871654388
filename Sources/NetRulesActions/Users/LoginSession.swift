internal import CSystemd

/// A session logind knows, as much of it as `user: active` needs.
struct LoginSession: Hashable, Sendable {
    var uid: UInt32
    var isActive: Bool
    var isRemote: Bool
    /// `x11`, `wayland`, `mir`, `tty`, `unspecified`.
    var type: String
    /// `user`, `greeter`, `lock-screen`, `background`, `manager`.
    var sessionClass: String
    /// `seat0`, or empty for a session on no seat (ssh, cron).
    var seat: String

    /// The session types of a graphical desktop.
    static let graphicalTypes: Set<String> = ["x11", "wayland", "mir"]

    /// The user of the active local graphical session among `sessions`, or nil when there is none.
    ///
    /// A candidate is active, local (not remote), of a graphical type, of class `user` (not the
    /// login screen's greeter), and on a seat. When several are (one per seat on a multi-seat
    /// machine), `seat0`'s wins, then the lowest uid, so the choice does not depend on logind's
    /// listing order.
    static func activeGraphicalUser(in sessions: [LoginSession]) -> UInt32? {
        let candidates = sessions.filter {
            $0.isActive && !$0.isRemote && graphicalTypes.contains($0.type) && $0.sessionClass == "user"
                && !$0.seat.isEmpty
        }
        return candidates.min { a, b in
            if (a.seat == "seat0") != (b.seat == "seat0") { return a.seat == "seat0" }
            return a.uid < b.uid
        }?.uid
    }

    /// Every session logind knows now (`sd_get_sessions(3)`); none when logind is not running.
    /// - Throws: `LoginSession.Unavailable` when libsystemd cannot be loaded.
    static func current() throws(Unavailable) -> [LoginSession] {
        let capacity = 64
        var raw = [netrules_login_session](repeating: netrules_login_session(), count: capacity)
        var message = [CChar](repeating: 0, count: 256)
        let count = netrules_sd_login_sessions(&raw, CInt(capacity), &message, message.count)
        guard count >= 0 else {
            throw Unavailable(description: String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        return raw.prefix(Int(count)).map { session in
            var session = session
            return LoginSession(
                uid: session.uid, isActive: session.active != 0, isRemote: session.remote != 0,
                type: text(&session.type), sessionClass: text(&session.session_class), seat: text(&session.seat))
        }
    }

    /// libsystemd could not be loaded, so logind cannot be asked.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// A NUL-terminated C array field as a String.
    private static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
