import NetRulesCore
import NetRulesTesting

@testable import NetRulesActions

/// An HTTPS server on loopback for webhook tests: a CA of the test's signs its certificate (key B,
/// trusted through `ca_file`), and it forwards to the test's HTTP server, which counts the
/// requests and, one upstream connection per TLS connection, the TLS connections.
struct PinnedHTTPSServer {
    let harness = RunnerHarness()
    let authority: TestCertificateAuthority
    /// The HTTP server behind `server`, which terminates TLS for it.
    let http: TestHTTPServer
    /// Presents key B, the only server at its address.
    let server: TestTLSServer
    /// Key B's pin.
    let serverPin: String
    /// Key A's pin, which the server cannot pass: a request pinned to it alone must fail.
    let otherPin: String

    init() throws {
        let directory = harness.directory.path
        authority = try TestCertificateAuthority("corp", in: directory)
        let certificate = try authority.issue(
            "b", commonName: "localhost", subjectAltNames: ["IP:127.0.0.1", "DNS:localhost"])
        serverPin = try certificate.opensslPin
        otherPin = try authority.issue(
            "a", commonName: "localhost", subjectAltNames: ["IP:127.0.0.1", "DNS:localhost"]
        ).opensslPin
        http = try TestHTTPServer { _ in .status(200) }
        server = try TestTLSServer(certificate, address: "127.0.0.1", port: 0, in: nil, forwardingTo: http.port)
    }

    /// The requests the HTTP server received, as `METHOD PATH`.
    var requests: [String] { http.requests.map { "\($0.method) \($0.path)" } }

    /// A webhook of one attempt to `path` on the server, with these pins and CA file.
    func webhook(_ path: String, pins: [String], caFile: String?) -> WebhookAction {
        var webhook = WebhookAction(
            url: Fixtures.template(server.url(path)), body: .text(Fixtures.template("{}")), attempts: 1)
        webhook.pins = pins
        webhook.caFile = caFile
        return webhook
    }

    func stop() {
        server.stop()
        http.stop()
    }
}
