import NetRulesTesting
import Testing

@testable import NetRulesHTTP

@Suite(.timeLimit(.minutes(1)))
struct CurlHandlePoolTests {
    private func key(pin: String? = nil, caFile: String? = nil) -> CurlHandlePool.Key {
        CurlHandlePool.Key(
            HTTPRequest(url: "https://example.invalid/", pinnedPublicKey: pin, caFile: caFile))
    }

    @Test func aCheckedInHandleServesTheNextRequestWithTheSameKeyOnly() throws {
        #expect(CurlTransfer.loadLibrary() == nil)
        let pool = CurlHandlePool()
        let first = try #require(pool.checkOut(key(pin: "sha256//A=")))
        pool.checkIn(first)
        let other = try #require(pool.checkOut(key(pin: "sha256//a=")))
        #expect(other.pointer != first.pointer, "a pin differing only in case is another key")
        let noPin = try #require(pool.checkOut(key(caFile: "/ca.pem")))
        #expect(noPin.pointer != first.pointer)
        let again = try #require(pool.checkOut(key(pin: "sha256//A=")))
        #expect(again.pointer == first.pointer)
        for handle in [other, noPin, again] { pool.checkIn(handle) }
        #expect(pool.idleCount == 3)
    }

    @Test func beyondTheLimitTheLeastRecentlyUsedHandleIsClosed() throws {
        #expect(CurlTransfer.loadLibrary() == nil)
        let pool = CurlHandlePool(maximumIdle: 2)
        let handles = try ["A", "B", "C"].map { try #require(pool.checkOut(key(pin: "sha256//\($0)="))) }
        for handle in handles { pool.checkIn(handle) }
        #expect(pool.idleCount == 2)
        // A's was checked in first and so closed; B's and C's wait.
        let c = try #require(pool.checkOut(key(pin: "sha256//C=")))
        #expect(c.pointer == handles[2].pointer)
        pool.checkIn(c)
    }

    /// Transfers on many threads at once, sharing DNS and TLS sessions through the pool's shares.
    @Test func concurrentRequestsThroughOneClientAllComplete() async throws {
        let server = try TestHTTPServer { _ in .status(200) }
        defer { server.stop() }
        let client = HTTPClient()
        for _ in 0..<3 {
            let statuses = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        (try? await client.send(HTTPRequest(url: server.url("/"), timeout: .seconds(5))))?.status ?? 0
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 24))
        }
        #expect(server.requests.count == 72)
    }

    @Test func sequentialRequestsShareOneConnectionUnlessReuseIsOff() async throws {
        let server = try TestHTTPServer { _ in .status(200) }
        defer { server.stop() }
        for (reuses, connections) in [(true, 1), (false, 5)] {
            let before = server.connectionCount
            let client = HTTPClient(reusesConnections: reuses)
            for _ in 0..<5 {
                let response = try await client.send(HTTPRequest(url: server.url("/"), timeout: .seconds(5)))
                #expect(response.status == 200)
            }
            #expect(server.connectionCount - before == connections, "reuse \(reuses)")
        }
    }
}
