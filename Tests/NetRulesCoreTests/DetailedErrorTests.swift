import NetRulesCore
import NetRulesTesting
import Testing

/// The one rendering of an error's detailed form (code, throw site, cause chain) and the log's
/// use of it at `debug`.
@Suite(.timeLimit(.minutes(1)))
struct DetailedErrorTests {
    struct Failure: DetailedError {
        var code: String
        var message: String
        var cause: (any Error)?
        var file: String = "Module/Thing.swift"
        var line: Int = 12
        var description: String { message }
        var underlyingError: (any Error)? { cause }
    }

    struct Plain: Error, CustomStringConvertible {
        var description: String { "'write' failed: (28) No space left on device" }
    }

    @Test func theDetailedFormNamesCodeThrowSiteAndEveryCause() {
        let inner = Failure(code: "write failed", message: "cannot append to 'journal.jsonl'", cause: Plain(), line: 40)
        let outer = Failure(code: "io failed", message: "cannot persist the rule state", cause: inner)
        #expect(
            outer.detailedDescription == """
                cannot persist the rule state (io failed, at Module/Thing.swift:12)
                  caused by: cannot append to 'journal.jsonl' (write failed, at Module/Thing.swift:40)
                  caused by: 'write' failed: (28) No space left on device
                """)
    }

    @Test func theLogWritesTheDetailedFormAtDebugOnly() {
        let error = Failure(code: "io failed", message: "disk full", cause: Plain())
        let sink = CapturingLogSink()
        Logger(label: "t", level: .debug, sink: sink).log(.error, "cannot persist", error: error)
        #expect(sink.records.map(\.level) == [.error, .debug])
        #expect(sink.messages.first == "cannot persist: disk full")
        #expect(sink.messages.last?.contains("(io failed, at Module/Thing.swift:12)\n  caused by: 'write'") == true)

        let quiet = CapturingLogSink()
        Logger(label: "t", level: .notice, sink: quiet).log(.error, "cannot persist", error: error)
        #expect(quiet.messages == ["cannot persist: disk full"])
    }
}
