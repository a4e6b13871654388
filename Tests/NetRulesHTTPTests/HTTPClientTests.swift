import NetRulesHTTP
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct HTTPClientTests {
    let client = HTTPClient()

    @Test func returnsStatusHeadersAndBodyAndSendsTheRequest() async throws {
        let server = try TestHTTPServer { request in
            .response(status: 201, headers: [("X-Echo", request.method)], body: request.body.reversed())
        }
        defer { server.stop() }
        let request = HTTPRequest(
            url: server.url("/hook"), method: "POST", headers: [("Content-Type", "text/plain")],
            body: Array("abc".utf8), timeout: .seconds(5))
        let response = try await client.send(request)
        #expect(response.status == 201)
        #expect(response.header("x-echo") == "POST")
        #expect(response.body == Array("cba".utf8))
        #expect(!response.isTruncated)
        let received = try #require(server.requests.first)
        #expect(received.path == "/hook")
        #expect(received.headers.contains { $0.0 == "Content-Type" && $0.1 == "text/plain" })
        #expect(!received.headers.contains { $0.0.lowercased() == "expect" })
    }

    @Test func returnsRedirectWithoutFollowingIt() async throws {
        let server = try TestHTTPServer { request in
            request.path == "/login"
                ? .response(status: 200, body: Array("login".utf8))
                : .response(status: 302, headers: [("Location", "/login?from=probe")])
        }
        defer { server.stop() }
        let response = try await client.send(HTTPRequest(url: server.url("/probe"), timeout: .seconds(5)))
        #expect(response.status == 302)
        #expect(response.location == server.url("/login?from=probe"))
        #expect(server.requests.map(\.path) == ["/probe"])
    }

    @Test func timesOutNearTheRequestedTime() async throws {
        let server = try TestHTTPServer { _ in .hang }
        defer { server.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        let error = await #expect(throws: HTTPError.self) {
            try await client.send(HTTPRequest(url: server.url(), timeout: .milliseconds(300)))
        }
        let elapsed = clock.now - started
        #expect(error?.code == .timeout)
        #expect(elapsed >= .milliseconds(290) && elapsed < .milliseconds(1500), "took \(elapsed)")
    }

    @Test func capsTheBodyAndSaysSo() async throws {
        let server = try TestHTTPServer { _ in .response(status: 200, body: Array(repeating: 0x41, count: 300_000)) }
        defer { server.stop() }
        let response = try await client.send(HTTPRequest(url: server.url(), maxResponseBytes: 1000))
        #expect(response.status == 200)
        #expect(response.body.count == 1000)
        #expect(response.isTruncated)
    }

    @Test func refusedConnectionIsCouldNotConnect() async throws {
        let server = try TestHTTPServer { _ in .hang }
        let url = server.url()
        server.stop()
        let error = await #expect(throws: HTTPError.self) {
            try await client.send(HTTPRequest(url: url, timeout: .seconds(2)))
        }
        #expect(error?.code == .couldNotConnect)
    }

    @Test(arguments: ["file:///etc/hostname", "ftp://127.0.0.1/", "http://[::1"])
    func refusesOtherSchemes(url: String) async throws {
        let error = await #expect(throws: HTTPError.self) {
            try await client.send(HTTPRequest(url: url, timeout: .seconds(1)))
        }
        #expect(error?.code == .invalidRequest)
    }

    @Test func cancellationReturnsPromptly() async throws {
        let server = try TestHTTPServer { _ in .hang }
        defer { server.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        let task = Task { try await client.send(HTTPRequest(url: server.url(), timeout: .seconds(30))) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let result = await task.result
        #expect(clock.now - started < .seconds(1))
        #expect(throws: HTTPError.self) { try result.get() }
    }
}
