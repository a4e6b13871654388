import NetRulesCore
import NetRulesDaemon
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesCLI

@Suite(.timeLimit(.minutes(1)))
struct WatchDocumentTests {
    @Test func printsInitialFactsAsJSONLinesAndStopsOnCancellation() async throws {
        let lines = Mutex<[String]>([])
        let (seen, seenContinuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            await WatchSubcommand.watchSystem(
                json: true,
                loop: .testLoop,
                output: { line in
                    lines.withLock { $0.append(line) }
                    seenContinuation.yield()
                }, errorOutput: { _ in })
        }
        for await _ in seen where lines.withLock({ $0.contains { $0.contains(#""key":"interfaces.lo""#) } }) { break }
        task.cancel()
        #expect(await task.value == 0)
        let line = try #require(lines.withLock { $0.first { $0.contains(#""key":"interfaces.lo""#) } })
        #expect(line.hasPrefix(#"{"version":1,"key":"interfaces.lo","new":"up","at":""#))
        #expect(line.hasSuffix("Z\"}\n"))
    }

    @Test func textLinesShowOldAndNew() {
        let at = WallClock.rfc3339(nanosecondsSinceEpoch: 3_723_045_000_000)
        func change(_ key: FactKey, _ old: FactState, _ new: FactState) -> JSONValue {
            ControlDocuments.change(FactChange(key: key, old: old, new: new, at: at))
        }
        #expect(
            WatchDocument.text(change(.gateway, .value(.string("10.0.0.1")), .absent))
                == "01:02:03.045  gateway  10.0.0.1 -> none\n")
        #expect(
            WatchDocument.json(change(.ssid, .unknown, .value(.bytes([0x41, 0xff]))))
                == #"{"version":1,"key":"ssid","new":"A\udcff","at":"1970-01-01T01:02:03.045Z"}"# + "\n")
    }
}
