import NetRulesTesting
import Synchronization

/// A connectivity-check URL in the peer namespace whose answer the test switches: while behind
/// the "portal" it redirects (302) to a login page; once cleared it answers 200 `Success`.
final class PortalEndpoint: Sendable {
    private let loggedIn = Mutex(false)
    private let server = Mutex<TestHTTPServer?>(nil)

    /// - Parameter redirect: The `Location` to send while not logged in (the login page's URL unless given).
    init(in testbed: Testbed, loggedIn: Bool, redirect: String? = nil) throws {
        self.loggedIn.withLock { $0 = loggedIn }
        let started = try testbed.serve { [self] request in
            if request.path.hasPrefix("/login") {
                return .response(status: 200, reason: "OK", body: Array("<form>Log in</form>".utf8))
            }
            guard self.loggedIn.withLock({ $0 }) else {
                let login = redirect ?? "http://\(Testbed.peerAddress):\(self.port)/login"
                return .response(status: 302, reason: "Found", headers: [("Location", login)])
            }
            return .response(status: 200, reason: "OK", body: Array("Success".utf8))
        }
        server.withLock { $0 = started }
    }

    var port: UInt16 { server.withLock { $0!.port } }

    /// The probe URL the rule file names.
    var url: String { "http://\(Testbed.peerAddress):\(port)/hotspot" }

    /// Probes received so far (requests for the probe URL, not the login page).
    var probes: [TestHTTPServer.Request] { server.withLock { $0!.requests }.filter { $0.path == "/hotspot" } }

    /// Logs in: from now on the probe URL answers `Success`.
    func clear() { loggedIn.withLock { $0 = true } }

    /// The `connectivity:` section pointing the daemon's portal probe here.
    var connectivityYAML: String {
        """
        connectivity:
          probes:
            - { url: "\(url)", status: 200, body: Success }
          interval: 5m

        """
    }
}
