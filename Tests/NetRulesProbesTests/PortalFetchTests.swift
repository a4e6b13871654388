import Foundation
import NetRulesCore
import NetRulesHTTP
import NetRulesTesting
import Testing

@testable import NetRulesProbes

/// The portal probe's own HTTP GET: its URL handling, its response reader (fed whole and byte by
/// byte), and real exchanges with loopback servers, well-behaved and hostile.
@Suite(.timeLimit(.minutes(1)))
struct PortalFetchTests {
    // MARK: - URLs

    @Test func probeURLsSplitIntoHostPortAndTarget() throws {
        let plain = try ProbeURL("http://captive.apple.com/hotspot-detect.html")
        #expect(
            plain.host == "captive.apple.com" && plain.port == 80 && plain.target == "/hotspot-detect.html"
                && plain.authority == "captive.apple.com")
        let withPort = try ProbeURL("HTTP://192.0.2.1:8080?x=1#frag")
        #expect(
            withPort.host == "192.0.2.1" && withPort.port == 8080 && withPort.target == "/?x=1"
                && withPort.authority == "192.0.2.1:8080")
        let v6 = try ProbeURL("http://[2001:db8::1]:81/generate_204")
        #expect(
            v6.host == "2001:db8::1" && v6.port == 81 && v6.target == "/generate_204"
                && v6.authority == "[2001:db8::1]:81")
        #expect(try ProbeURL("http://example.test").target == "/")
    }

    @Test(arguments: [
        "https://example.test/", "ftp://example.test/", "http://", "http://:80/", "http://user@example.test/",
        "http://example.test:0/", "http://example.test:65536/", "http://example.test:8x/", "http://[2001:db8::1/",
        "http://example.test/a b", "http://example.test/\r\nX-Injected: 1", "http://example.test/\u{7F}",
    ])
    func unusableProbeURLsAreRefused(_ url: String) {
        #expect(throws: ProbeURL.Unusable.self) { try ProbeURL(url) }
    }

    @Test func redirectTargetsResolveAgainstTheProbeURL() throws {
        let url = try ProbeURL("http://192.0.2.1:8080/dir/probe?x=1")
        #expect(url.resolve("http://portal.test/login?a=$(x)") == "http://portal.test/login?a=$(x)")
        #expect(url.resolve("HTTPS://portal.test/") == "HTTPS://portal.test/")
        #expect(url.resolve("//portal.test/login") == "http://portal.test/login")
        #expect(url.resolve("/login?from=probe") == "http://192.0.2.1:8080/login?from=probe")
        #expect(url.resolve("?next=1") == "http://192.0.2.1:8080/dir/probe?next=1")
        #expect(url.resolve("login") == "http://192.0.2.1:8080/dir/login")
    }

    // MARK: - The reader

    /// Feeds `bytes` whole, then one byte at a time, and checks both readings agree.
    static func read(_ text: String, limit: Int = 1024, head: Bool = false, close: Bool = true)
        -> HTTPResponseReader.Progress
    {
        let bytes = Array(text.utf8)
        var whole = HTTPResponseReader(bodyLimit: limit, requestWasHead: head)
        var outcome = whole.consume(bytes)
        if outcome == .needMore, close { outcome = whole.end() }
        var split = HTTPResponseReader(bodyLimit: limit, requestWasHead: head)
        var byByte = HTTPResponseReader.Progress.needMore
        for byte in bytes where byByte == .needMore { byByte = split.consume([byte]) }
        if byByte == .needMore, close { byByte = split.end() }
        #expect(outcome == byByte, "byte-by-byte reading differs")
        return outcome
    }

    static func complete(_ progress: HTTPResponseReader.Progress) -> (status: Int, body: String, truncated: Bool)? {
        guard case .complete(let head, let body, let truncated) = progress else { return nil }
        return (head.status, String(decoding: body, as: UTF8.self), truncated)
    }

    @Test func contentLengthChunkedAndCloseFramedBodies() {
        let sized = Self.complete(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nSuccessIGNORED", close: false))
        #expect(sized?.status == 200 && sized?.body == "Success" && sized?.truncated == false)
        let chunked = Self.complete(
            Self.read(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n4;ext=1\r\nSucc\r\n3\r\ness\r\n0\r\nX-Trailer: t\r\n\r\n",
                close: false))
        #expect(chunked?.body == "Success")
        // A server that closes after the last chunk without the final blank line still sent the whole body.
        #expect(
            Self.complete(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n"))?.body
                == "ok")
        let untilClose = Self.complete(Self.read("HTTP/1.0 200 OK\nServer: x\n\nSuccess"))
        #expect(untilClose?.body == "Success")
        // A HEAD answer, 204 and 304 have no body whatever their headers say; a 100 is skipped.
        #expect(
            Self.complete(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", head: true, close: false))?.body
                == "")
        #expect(
            Self.complete(Self.read("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n", close: false))?.status
                == 204)
        let interim = Self.complete(
            Self.read(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 302 Found\r\nLocation: /login\r\nContent-Length: 0\r\n\r\n",
                close: false))
        #expect(interim?.status == 302)
        guard case .complete(let head, _, _) = Self.read("HTTP/1.1 302 Found\r\nlocation:  /login \r\n\r\n") else {
            Issue.record("no response")
            return
        }
        #expect(head.value(of: "Location") == "/login")
    }

    @Test func bodiesPastTheLimitAreCutAndMarkedTruncated() {
        let body = String(repeating: "x", count: 5_000)
        let sized = Self.complete(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + body, limit: 100))
        #expect(sized?.body.count == 100 && sized?.truncated == true)
        let chunked = Self.complete(
            Self.read(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1388\r\n" + body + "\r\n0\r\n\r\n", limit: 100))
        #expect(chunked?.body.count == 100 && chunked?.truncated == true)
    }

    @Test func brokenAndHostileAnswersFailWithAReason() {
        let cases: [(String, String)] = [
            ("SSH-2.0-OpenSSH_9.2\r\n\r\n", "not an HTTP/1.x response"),
            ("HTTP/2 200\r\n\r\n", "not an HTTP/1.x response"),
            ("HTTP/1.1 20 OK\r\n\r\n", "not an HTTP/1.x response"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "body"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
            // Found by the fuzzer: Int(_:radix:) takes a sign, and a negative size trapped.
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", "chunk size"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+1\r\nx\r\n0\r\n\r\n", "chunk size"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", "chunk size"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", "longer than its size"),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 2_000),
                "line longer"
            ),
            ("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 70_000), "header section is longer"),
            ("HTTP/1.1 200 OK\r\nX: y", "header section ended"),
        ]
        for (text, reason) in cases {
            guard case .failed(let message) = Self.read(text) else {
                Issue.record("accepted: \(text.prefix(60))")
                continue
            }
            #expect(message.contains(reason), "\(text.prefix(40)): \(message)")
        }
    }

    // MARK: - Exchanges on loopback

    static func fetch(_ url: String, timeout: Duration = .seconds(2), interface: String? = nil, limit: Int = 64 * 1024)
        async -> Result<HTTPResponse, HTTPError>
    {
        let request = HTTPRequest(
            url: url, headers: [("Cache-Control", "no-cache")], timeout: timeout, interface: interface,
            maxResponseBytes: limit)
        do {
            return .success(try await PortalFetch.send(request, executor: .dedicatedThreads, loop: .testLoop))
        } catch {
            return .failure(error)
        }
    }

    @Test func aGetReachesTheServerAndItsAnswerComesBack() async throws {
        let server = try TestHTTPServer { _ in
            .response(status: 302, headers: [("Location", "/login?from=probe")], body: Array("moved".utf8))
        }
        defer { server.stop() }
        let response = try await Self.fetch(server.url("/hotspot-detect.html?x=1")).get()
        #expect(response.status == 302 && response.body == Array("moved".utf8))
        #expect(response.location == server.url("/login?from=probe"))
        let request = try #require(server.requests.first)
        #expect(request.method == "GET" && request.path == "/hotspot-detect.html?x=1")
        let headers = Dictionary(request.headers.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { a, _ in a })
        #expect(headers["host"] == "127.0.0.1:\(server.port)")
        #expect(headers["cache-control"] == "no-cache" && headers["connection"] == "close")
    }

    @Test func aChunkedBodyPastTheLimitIsTruncated() async throws {
        let chunk = String(repeating: "x", count: 0x4000)
        let body = String(repeating: "4000\r\n" + chunk + "\r\n", count: 8) + "0\r\n\r\n"
        let server = try TestHTTPServer { _ in
            .raw(Array(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body).utf8))
        }
        defer { server.stop() }
        let response = try await Self.fetch(server.url(), limit: 64 * 1024).get()
        #expect(response.body.count == 64 * 1024 && response.isTruncated)
    }

    @Test func aServerThatStopsMidHeaderTimesOut() async throws {
        let server = try TestHTTPServer { _ in .raw(Array("HTTP/1.1 200 OK\r\nX-Slow: ".utf8), hold: true) }
        defer { server.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        let outcome = await Self.fetch(server.url(), timeout: .milliseconds(300))
        #expect(clock.now - started < .seconds(2))
        guard case .failure(let error) = outcome else {
            Issue.record("an answer without its header section's end")
            return
        }
        #expect(error.code == .timeout)
    }

    @Test func refusedUnresolvableAndUnusableRequestsFailWithTheirCodes() async throws {
        // Port 1 on loopback: nothing listens there.
        guard case .failure(let refused) = await Self.fetch("http://127.0.0.1:1/") else {
            Issue.record("port 1 answered")
            return
        }
        #expect(refused.code == .couldNotConnect)
        guard case .failure(let unusable) = await Self.fetch("https://127.0.0.1/") else {
            Issue.record("https accepted")
            return
        }
        #expect(unusable.code == .invalidRequest)
        guard case .failure(let noInterface) = await Self.fetch("http://127.0.0.1:1/", interface: "nr-no-such-if")
        else {
            Issue.record("bound to a missing interface")
            return
        }
        #expect(noInterface.code == .couldNotConnect)
        #expect(noInterface.message.contains("nr-no-such-if"))
    }

    @Test func boundToLoopbackTheProbeStillReachesALoopbackServer() async throws {
        let server = try TestHTTPServer { _ in .response(status: 204) }
        defer { server.stop() }
        let response = try await Self.fetch(server.url("/generate_204"), interface: "lo").get()
        #expect(response.status == 204 && response.body.isEmpty)
    }

    @Test func cancellingTheCallerReturnsAtOnce() async throws {
        let server = try TestHTTPServer { _ in .hang }
        defer { server.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        let task = Task { await Self.fetch(server.url(), timeout: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        guard case .failure(let error) = await task.value else {
            Issue.record("an answer from a server that never answers")
            return
        }
        #expect(error.code == .cancelled)
        #expect(clock.now - started < .seconds(3))
    }
}
