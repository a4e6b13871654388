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
    typealias Setup = PinnedHTTPSServer

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

extension PinnedHTTPSServer {
    /// Delivers one check-in webhook and waits for its result.
    fileprivate func deliver(pins: [String], caFile: String?) async -> ActionResult? {
        let webhook = webhook("/check-in", pins: pins, caFile: caFile)
        await harness.runner.submit(Fixtures.firing(actions: [ActionSpec(webhook)]), wallTime: "t")
        return await harness.settledResults(expecting: 1).first
    }
}
