import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// A pinned webhook end to end (issue 22): an HTTPS server on loopback whose certificate a CA of
/// the test's signs, trusted through `ca_file`. The right pin delivers; a server presenting
/// another key never receives the request, and the result says the pin did not match.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WebhookPinDeliveryTests {
    struct Setup {
        let harness = RunnerHarness()
        let authority: TestCertificateAuthority
        /// The tests' HTTP server, behind `server`, which terminates TLS for it.
        let http: TestHTTPServer
        let server: TestTLSServer
        let serverPin: String
        let otherPin: String

        init() throws {
            let directory = harness.directory.path
            authority = try TestCertificateAuthority("corp", in: directory)
            let certificate = try authority.issue(
                "checkin", commonName: "localhost", subjectAltNames: ["IP:127.0.0.1", "DNS:localhost"])
            serverPin = try certificate.opensslPin
            otherPin = try TestCertificate("other", commonName: "localhost", in: directory).opensslPin
            http = try TestHTTPServer { _ in .status(200) }
            server = try TestTLSServer(
                certificate, address: "127.0.0.1", port: 0, in: nil, forwardingTo: http.port)
        }

        /// The requests the HTTP server received, as `METHOD PATH`.
        var requests: [String] { http.requests.map { "\($0.method) \($0.path)" } }

        func stop() {
            server.stop()
            http.stop()
        }

        func deliver(pins: [String], caFile: String?) async -> ActionResult? {
            var webhook = WebhookAction(
                url: Fixtures.template(server.url("/check-in")), body: .text(Fixtures.template("{}")), attempts: 1)
            webhook.pins = pins
            webhook.caFile = caFile
            await harness.runner.submit(Fixtures.firing(actions: [ActionSpec(webhook)]), wallTime: "t")
            return await harness.settledResults(expecting: 1).first
        }
    }

    private func failure(_ result: ActionResult?) -> ActionError? {
        guard case .failed(let error)? = result?.outcome else { return nil }
        return error
    }

    @Test func theRightPinWithTheCAFileIsDelivered() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let result = await setup.deliver(
            pins: [setup.otherPin, setup.serverPin], caFile: setup.authority.certificatePath)
        guard case .succeeded? = result?.outcome else {
            Issue.record("not delivered: \(String(describing: result))")
            return
        }
        #expect(setup.requests == ["POST /check-in"])
    }

    @Test func aServerWhoseKeyMatchesNoPinNeverSeesTheRequest() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let result = await setup.deliver(pins: [setup.otherPin], caFile: setup.authority.certificatePath)
        let error = try #require(failure(result), "\(String(describing: result))")
        #expect(error.message.contains("the server's public key matches none of the webhook's pins"), "\(error)")
        #expect(setup.requests.isEmpty, "the server received \(setup.requests)")
        let failed = (try? sys_listDirectory(setup.harness.directory.file("state/outbox/failed")).get(call: "list"))
        #expect(failed?.contains { $0.hasSuffix(".json") } == true, "\(String(describing: failed))")
    }

    /// Without `ca_file` the chain is checked against the system's CAs, which do not know the test's.
    @Test func withoutTheCAFileTheChainIsRefusedAndNothingIsSent() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let result = await setup.deliver(pins: [setup.serverPin], caFile: nil)
        let error = try #require(failure(result), "\(String(describing: result))")
        #expect(error.message.contains("the server's certificate is not signed by the system's CAs"), "\(error)")
        #expect(setup.requests.isEmpty)
    }
}
