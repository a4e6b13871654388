import Foundation
import NetRulesTesting
import Testing

@testable import NetRulesHTTP

/// The pin handshake against python3 TLS servers in a peer namespace, with certificates the test makes.
@Suite(.timeLimit(.minutes(2)), .enabled(if: isRoot, "needs root for network namespaces"))
struct TLSHandshakeNamespaceTests {
    @Test func matchesThePinnedKeyAndReportsTheKeyPresentedOnAMismatch() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        let directory = TemporaryDirectory("netrules-tls")
        defer { directory.remove() }
        let genuine = try TestCertificate("genuine", commonName: "nas.home.arpa", in: directory.path)
        let spoof = try TestCertificate("spoof", commonName: "nas.home.arpa", in: directory.path)
        let genuinePin = try genuine.opensslPin
        let spoofPin = try spoof.opensslPin
        #expect(genuinePin != spoofPin)

        let server = try TestTLSServer(genuine, address: TestNetwork.serverAddress, port: 8443, in: network.server)
        let executor = network.client.executor
        let pinned = TLSHandshake(host: TestNetwork.serverAddress, port: 8443, pins: [spoofPin, genuinePin])
        guard case .completed(let presented) = await pinned.perform(executor: executor) else {
            Issue.record("the pinned key did not match")
            return
        }
        #expect(presented?.pin == genuinePin)
        #expect(presented?.subject == "CN = nas.home.arpa")
        #expect(presented?.issuer == "CN = nas.home.arpa")
        server.stop()

        let spoofing = try TestTLSServer(spoof, address: TestNetwork.serverAddress, port: 8443, in: network.server)
        defer { spoofing.stop() }
        let wrong = TLSHandshake(host: TestNetwork.serverAddress, port: 8443, pins: [genuinePin])
        guard case .mismatch(let other) = await wrong.perform(executor: executor) else {
            Issue.record("another key was accepted")
            return
        }
        #expect(other?.pin == spoofPin)
    }

    @Test func failsWithoutAServerOrWithinItsTimeout() async throws {
        let network = try TestNetwork()
        defer { network.delete() }
        let refused = TLSHandshake(host: TestNetwork.serverAddress, port: 8443, pins: [])
        guard case .failed(let error) = await refused.perform(executor: network.client.executor) else {
            Issue.record("a handshake with no server completed")
            return
        }
        #expect(error.code == .couldNotConnect)
        // An address nothing answers on behind the gateway: the timeout decides.
        let clock = ContinuousClock()
        let started = clock.now
        let silent = TLSHandshake(host: "10.77.9.9", port: 443, timeout: .milliseconds(300))
        guard case .failed(let timeout) = await silent.perform(executor: network.client.executor) else {
            Issue.record("a handshake to nowhere completed")
            return
        }
        #expect(timeout.code == .timeout || timeout.code == .couldNotConnect)
        #expect(clock.now - started < .seconds(2))
    }

    @Test func readsAPEMFileAsTheOpenSSLRecipeDoes() throws {
        let directory = TemporaryDirectory("netrules-tls")
        defer { directory.remove() }
        let certificate = try TestCertificate("a", commonName: "intranet.corp.example", in: directory.path)
        let pem = try [UInt8](Data(contentsOf: URL(fileURLWithPath: certificate.certificatePath)))
        let summary = try CertificateSummary.read(pem: pem)
        #expect(summary.pin == (try certificate.opensslPin))
        #expect(summary.subject == "CN = intranet.corp.example")
        #expect(summary.notAfter.hasSuffix("GMT"))
        #expect(throws: HTTPError.self) { try CertificateSummary.read(pem: Array("not a certificate".utf8)) }
    }
}
