import NetRulesCore
import NetRulesHTTP
import NetRulesTesting
import Testing

@testable import NetRulesProbes

/// Real HTTP servers in a peer namespace, probed from a client namespace through a veth pair.
@Suite(.timeLimit(.minutes(3)), .enabled(if: isRoot, "portal namespace tests need root"))
struct PortalNamespaceTests {
    static let loginPage = Array("<html><body><form action=/login>Log in</form></body></html>".utf8)

    /// Every kind of server from the issue, each on its own port in the server namespace.
    final class Servers: Sendable {
        let network: TestNetwork
        let apple, empty204, redirect, loginForm, status511, silent: TestHTTPServer

        init(defaultRoute: Bool = true) throws {
            let network = try TestNetwork(defaultRoute: defaultRoute)
            self.network = network
            do {
                func serve(_ reply: TestHTTPServer.Reply) throws -> TestHTTPServer {
                    try TestHTTPServer(address: TestNetwork.serverAddress, in: network.server) { _ in reply }
                }
                apple = try serve(
                    .response(
                        status: 200,
                        body: Array(
                            "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>\n".utf8)))
                empty204 = try serve(.response(status: 204))
                redirect = try serve(
                    .response(status: 302, headers: [("Location", "http://10.77.0.2/login?orig=probe")]))
                loginForm = try serve(.response(status: 200, headers: [("Content-Type", "text/html")], body: loginPage))
                status511 = try serve(.response(status: 511, body: Array("<a href=/login>log in</a>".utf8)))
                silent = try serve(.hang)
            } catch {
                network.delete()
                throw error
            }
        }

        func stop() {
            for server in [apple, empty204, redirect, loginForm, status511, silent] { server.stop() }
            network.delete()
        }

        func classify(_ probes: [ConnectivitySettings.Probe], timeout: Duration = .milliseconds(800)) async
            -> PortalVerdict
        {
            await PortalClassifier(
                executor: network.client.executor, loop: .testLoop, timeout: timeout, interface: "nrc0"
            ).classify(
                probes)
        }
    }

    static func page(_ url: String) -> ConnectivitySettings.Probe {
        .init(url: url, expectedStatus: 200, expectedBody: "Success")
    }
    static func empty(_ url: String) -> ConnectivitySettings.Probe {
        .init(url: url, expectedStatus: 204, expectedBody: nil)
    }

    @Test func verdictsForEachKindOfServer() async throws {
        let servers = try Servers()
        defer { servers.stop() }

        let online = await servers.classify([Self.page(servers.apple.url("/hotspot-detect.html"))])
        #expect(online.connectivity == .online && online.portalURL == nil)
        #expect(online.decidingProbe?.status == 200)

        let online204 = await servers.classify([Self.empty(servers.empty204.url("/generate_204"))])
        #expect(online204.connectivity == .online)

        let redirected = await servers.classify([Self.page(servers.redirect.url("/hotspot-detect.html"))])
        #expect(redirected.connectivity == .portal)
        #expect(redirected.portalURL == "http://10.77.0.2/login?orig=probe")
        #expect(servers.redirect.requests.count == 1)  // the redirect was not followed

        let form = await servers.classify([Self.empty(servers.loginForm.url("/generate_204"))])
        #expect(form.connectivity == .portal)
        #expect(form.portalURL == servers.loginForm.url("/generate_204"))

        let blocked = await servers.classify([Self.page(servers.status511.url("/hotspot-detect.html"))])
        #expect(blocked.connectivity == .portal)
        #expect(blocked.decidingProbe?.status == 511)
        #expect(blocked.portalURL == servers.status511.url("/hotspot-detect.html"))
    }

    @Test func silentServerIsOfflineAfterTheTimeoutButLosesToAConclusiveProbe() async throws {
        let servers = try Servers()
        defer { servers.stop() }
        let silent = await servers.classify([Self.page(servers.silent.url("/"))], timeout: .milliseconds(400))
        #expect(silent.connectivity == .offline && silent.portalURL == nil)
        #expect(silent.evidence.first?.error?.hasPrefix("timeout") == true)

        let clock = ContinuousClock()
        let started = clock.now
        let mixed = await servers.classify(
            [Self.page(servers.silent.url("/")), Self.empty(servers.empty204.url("/generate_204"))],
            timeout: .seconds(5))
        #expect(mixed.connectivity == .online)
        #expect(clock.now - started < .seconds(3), "the first conclusive answer must not wait for the silent probe")
    }

    @Test func unresolvableProbeHostAndNoRouteAreOffline() async throws {
        let servers = try Servers(defaultRoute: false)
        defer { servers.stop() }
        // Inside the client namespace no packet can leave: the resolver fails and 10.88.0.1 has no route.
        let classifier = PortalClassifier(
            executor: servers.network.client.executor, loop: .testLoop, timeout: .seconds(2), interface: nil)
        let unresolved = await classifier.classify([Self.page("http://nrp-no-such-host.invalid/hotspot-detect.html")])
        #expect(unresolved.connectivity == .offline)
        #expect(unresolved.evidence.first?.error?.hasPrefix("could not resolve") == true)

        let noRoute = await classifier.classify([
            Self.page("http://10.88.0.1/"), Self.empty("http://10.88.0.2/generate_204"),
        ])
        #expect(noRoute.connectivity == .offline)
        #expect(noRoute.evidence.count == 2 && noRoute.evidence.allSatisfy { $0.status == nil })
    }

    @Test func observerReportsPortalURLAndBindsToTheDefaultRoute() async throws {
        let servers = try Servers()
        defer { servers.stop() }
        let settings = ConnectivitySettings(
            probes: [Self.page(servers.redirect.url("/hotspot-detect.html"))], onlineInterval: .seconds(300),
            timeout: .seconds(2))
        let probe = PortalProbe(
            settings: settings, clock: ManualClock(), executor: servers.network.client.executor,
            loop: .testLoop, bindToDefaultRoute: true)
        let (updates, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
        let task = Task { try await probe.run(reporting: FactReporter(continuation)) }
        defer { task.cancel() }
        var iterator = updates.makeAsyncIterator()
        let first = await iterator.next()
        #expect(
            first == FactUpdate(values: [.connectivity: "portal", .portalURL: "http://10.77.0.2/login?orig=probe"]))
    }

}
