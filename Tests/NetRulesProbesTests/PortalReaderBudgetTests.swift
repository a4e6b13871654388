import Foundation
import NetRulesCore
import NetRulesHTTP
import NetRulesTesting
import Testing

@testable import NetRulesProbes

/// The portal reader's total budget: a portal that sends trailers, interim answers or chunk-size
/// lines without end fails within a bounded number of bytes, and in milliseconds on a socket.
@Suite(.timeLimit(.minutes(1)))
struct PortalReaderBudgetTests {
    /// Feeds `piece` until the reader decides; returns the outcome and how many bytes it took.
    static func feedForever(_ start: String, _ piece: String, limit: Int = 1 << 26) -> (
        HTTPResponseReader.Progress, Int
    ) {
        var reader = HTTPResponseReader(bodyLimit: 64 * 1024)
        var fed = start.utf8.count
        var outcome = reader.consume(Array(start.utf8))
        let bytes = Array(piece.utf8)
        while outcome == .needMore && fed < limit {
            outcome = reader.consume(bytes)
            fed += bytes.count
        }
        return (outcome, fed)
    }

    @Test func endlessTrailersSpendTheHeaderBudget() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        let (outcome, fed) = Self.feedForever(head, "X-Trailer: " + String(repeating: "t", count: 100) + "\r\n")
        #expect(outcome == .failed("the response's header sections and trailers are longer than 64 KiB together"))
        #expect(fed < 70 * 1024)
    }

    @Test func endlessInterimAnswersFailAfterFour() {
        let (outcome, fed) = Self.feedForever("", "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(outcome == .failed("more than 4 interim (1xx) answers"))
        #expect(fed < 200)
    }

    @Test func interimAnswersWithLargeHeadersShareTheBudget() {
        let big = "HTTP/1.1 103 Early Hints\r\nLink: " + String(repeating: "l", count: 20_000) + "\r\n\r\n"
        let (outcome, fed) = Self.feedForever("", big)
        #expect(outcome == .failed("the response's header sections and trailers are longer than 64 KiB together"))
        #expect(fed <= 4 * big.utf8.count)
    }

    @Test func fourInterimAnswersThenTheFinalOneAreRead() throws {
        let interim = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 4)
        var reader = HTTPResponseReader(bodyLimit: 1024)
        let outcome = reader.consume(Array((interim + "HTTP/1.1 204 No Content\r\n\r\n").utf8))
        guard case .complete(let head, _, _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(head.status == 204)
    }

    @Test func tinyChunksWithLongExtensionsSpendTheChunkFramingBudget() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = "1;" + String(repeating: "e", count: 1000) + "\r\nx\r\n"
        let (outcome, fed) = Self.feedForever(head, chunk)
        #expect(outcome == .failed("the chunked body's size lines are longer than 64 KiB together"))
        // Without the budget this reads 64 Ki chunks (65 MB) before the body limit stops it.
        #expect(fed < 70 * 1024)
    }

    @Test func aPortalStreamingTrailersFailsInMilliseconds() async throws {
        // 8 MB of trailer lines: the probe gives up after the first 64 KiB.
        let trailers = String(repeating: "X-T: " + String(repeating: "t", count: 250) + "\r\n", count: 32 * 1024)
        let server = try TestHTTPServer { _ in
            .raw(
                Array(("HTTP/1.1 302 Found\r\nLocation: /x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + trailers).utf8)
            )
        }
        defer { server.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        let request = HTTPRequest(url: server.url(), headers: [], timeout: .seconds(5), maxResponseBytes: 64 * 1024)
        let outcome: Result<HTTPResponse, HTTPError>
        do {
            outcome = .success(try await PortalFetch.send(request, executor: .dedicatedThreads, loop: .testLoop))
        } catch {
            outcome = .failure(error)
        }
        let took = clock.now - started
        guard case .failure(let error) = outcome else {
            Issue.record("an answer with 8 MB of trailers was accepted")
            return
        }
        #expect(error.message.contains("header sections and trailers are longer than 64 KiB"))
        #expect(took < .milliseconds(500), "took \(took)")
    }
}
