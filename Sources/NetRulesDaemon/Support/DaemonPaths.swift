import Glibc

/// Where the daemon keeps its files, by convention for the user it runs as.
///
/// Root: state in `/var/lib/netrules`, the control socket in `/run/netrules/control.sock`, rules in
/// `/etc/netrules/*.yaml`. Another user: state in `$XDG_STATE_HOME/netrules` (else
/// `~/.local/state/netrules`), the socket in `$XDG_RUNTIME_DIR/netrules/control.sock` (else in the
/// state directory), rules in `$XDG_CONFIG_HOME/netrules` (else `~/.config/netrules`).
package struct DaemonPaths: Sendable, Equatable {
    package var stateDirectory: String
    package var controlSocket: String
    package var ruleDirectory: String

    package init(stateDirectory: String, controlSocket: String, ruleDirectory: String) {
        self.stateDirectory = stateDirectory
        self.controlSocket = controlSocket
        self.ruleDirectory = ruleDirectory
    }

    /// The defaults for this user and environment; explicit options override them.
    package static func defaults(
        environment: [String: String], isRoot: Bool = geteuid() == 0, stateDirectory: String? = nil,
        controlSocket: String? = nil
    ) -> DaemonPaths {
        let home = environment["HOME"] ?? "/root"
        let state: String
        let socket: String
        let rules: String
        if isRoot {
            state = stateDirectory ?? "/var/lib/netrules"
            socket = controlSocket ?? (stateDirectory.map { $0 + "/control.sock" } ?? "/run/netrules/control.sock")
            rules = "/etc/netrules"
        } else {
            state = stateDirectory ?? ((environment["XDG_STATE_HOME"] ?? home + "/.local/state") + "/netrules")
            if let explicit = controlSocket {
                socket = explicit
            } else if stateDirectory == nil, let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
                socket = runtime + "/netrules/control.sock"
            } else {
                socket = state + "/control.sock"
            }
            rules = (environment["XDG_CONFIG_HOME"] ?? home + "/.config") + "/netrules"
        }
        return DaemonPaths(stateDirectory: state, controlSocket: socket, ruleDirectory: rules)
    }
}
