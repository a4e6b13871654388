import Foundation
import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// The outbox file's codec: files netrules wrote with `JSONEncoder` read back with every value,
/// new files use the same member names, integers are exact, and a damaged file goes to `failed/`.
@Suite(.timeLimit(.minutes(1)))
struct OutboxEntryCodingTests {
    /// Written by `JSONEncoder` from the `Codable` entry of the previous version, as it was: keys in
    /// hash order, slashes as `\/`, `body` in base64, nil optionals left out.
    static let oldWebhook = [
        #"{"waitsForOnline":true,"caFile":"\/etc\/ssl\/ca.pem","backoffMilliseconds":2000,"#,
        #""idempotencyKey":"0F8A2C1E-3B4D-4E5F-8A9B-0C1D2E3F4A5B","method":"POST","#,
        #""url":"https:\/\/hooks.example\/in\/{{secret}}?a=1&b=2","attemptsMade":3,"#,
        #""pins":["sha256\/\/AbCd+\/xyz="],"failure":"HTTP 404 Not Found","version":1,"#,
        #""enqueuedAt":1733212345678901234,"rule":"office\/check-in","timeoutMilliseconds":10000,"#,
        #""edge":"enter","secretNonce":"n0nce","#,
        #""body":"eyJzc2lkIjoiQ2Fmw6kgXCJIUVwiIiwicGF0aCI6ImEvYiJ9\/wA=","#,
        #""headers":[{"parts":[{"text":"Bearer "},{"environment":"TOKEN"}],"name":"Authorization"},"#,
        #"{"parts":[{"text":"application\/json"}],"name":"Content-Type"}],"actionIndex":2,"attempts":5}"#,
    ].joined()
    static let oldMessage = [
        #"{"rule":"r","enqueuedAt":1733212345000000001,"method":"PUBLISH","url":"home\/office\/state","#,
        #""attempts":1,"mqtt":{"retain":true,"firingID":"t-12","qos":1},"idempotencyKey":"k-mqtt","#,
        #""waitsForOnline":false,"backoffMilliseconds":1000,"edge":"exit","headers":[],"body":"b24=","#,
        #""version":1,"timeoutMilliseconds":5000,"actionIndex":0,"attemptsMade":0}"#,
    ].joined()
    static let oldMinimal = [
        #"{"rule":"r","enqueuedAt":0,"attempts":1,"method":"GET","url":"http:\/\/127.0.0.1\/","#,
        #""idempotencyKey":"k-min","waitsForOnline":false,"backoffMilliseconds":10,"edge":"enter","#,
        #""headers":[],"version":1,"timeoutMilliseconds":1000,"actionIndex":0,"attemptsMade":0}"#,
    ].joined()

    @Test func aFileTheOldEncoderWroteReadsWithEveryValue() throws {
        let entry = try OutboxEntry(decoding: Array(Self.oldWebhook.utf8))
        #expect(entry.version == 1 && entry.idempotencyKey == "0F8A2C1E-3B4D-4E5F-8A9B-0C1D2E3F4A5B")
        #expect(entry.rule == "office/check-in" && entry.edge == "enter" && entry.actionIndex == 2)
        #expect(entry.enqueuedAt == 1_733_212_345_678_901_234)
        #expect(entry.method == "POST" && entry.url == "https://hooks.example/in/{{secret}}?a=1&b=2")
        #expect(entry.headers.map(\.name) == ["Authorization", "Content-Type"])
        #expect(
            entry.headers[0].parts == [
                OutboxEntry.HeaderPart(text: "Bearer ", environment: nil),
                OutboxEntry.HeaderPart(text: nil, environment: "TOKEN"),
            ])
        #expect(entry.headers[1].parts == [OutboxEntry.HeaderPart(text: "application/json", environment: nil)])
        #expect(entry.body.map { Array($0) } == Array(#"{"ssid":"Café \"HQ\"","path":"a/b"}"#.utf8) + [0xFF, 0x00])
        #expect(entry.timeoutMilliseconds == 10_000 && entry.attempts == 5 && entry.attemptsMade == 3)
        #expect(entry.backoffMilliseconds == 2_000 && entry.waitsForOnline)
        #expect(entry.pins == ["sha256//AbCd+/xyz="] && entry.caFile == "/etc/ssl/ca.pem")
        #expect(entry.secretNonce == "n0nce" && entry.failure == "HTTP 404 Not Found" && entry.mqtt == nil)

        let message = try OutboxEntry(decoding: Array(Self.oldMessage.utf8))
        #expect(message.enqueuedAt == 1_733_212_345_000_000_001 && message.method == "PUBLISH")
        #expect(message.mqtt?.qos == 1 && message.mqtt?.retain == true && message.mqtt?.firingID == "t-12")
        #expect(message.body.map { Array($0) } == Array("on".utf8) && message.url == "home/office/state")

        let minimal = try OutboxEntry(decoding: Array(Self.oldMinimal.utf8))
        #expect(minimal.body == nil && minimal.pins == nil && minimal.caFile == nil && minimal.secretNonce == nil)
        #expect(minimal.failure == nil && minimal.mqtt == nil && minimal.headers.isEmpty)
    }

    @Test func aWrittenEntryReadsBackAsItWasUnderTheOldMemberNames() throws {
        for old in [Self.oldWebhook, Self.oldMessage, Self.oldMinimal] {
            let entry = try OutboxEntry(decoding: Array(old.utf8))
            let bytes = Outbox.encode(entry)
            #expect(Outbox.encode(try OutboxEntry(decoding: bytes)) == bytes)
            // The same members as the old encoder wrote, so an older netrules reads the new file.
            let written = try JSONValue.Members(try JSONValue.parse(bytes)).all.map(\.0)
            let before = try JSONValue.Members(try JSONValue.parse(Array(old.utf8))).all.map(\.0)
            #expect(Set(written) == Set(before))
        }
    }

    @Test(arguments: [1_733_212_345_678_901_234, 0, 1, Int64.max, (1 << 53) + 1] as [Int64])
    func integersAreExact(nanoseconds: Int64) throws {
        var entry = try OutboxEntry(decoding: Array(Self.oldMinimal.utf8))
        entry.enqueuedAt = nanoseconds
        entry.timeoutMilliseconds = nanoseconds
        let bytes = Outbox.encode(entry)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"enqueuedAt\":\(nanoseconds),"))
        let read = try OutboxEntry(decoding: bytes)
        #expect(read.enqueuedAt == nanoseconds && read.timeoutMilliseconds == nanoseconds)
    }

    @Test(arguments: [
        ("not json", "not JSON"),
        (#"{"version":1,"headers":[]}"#, "idempotencyKey: missing"),
        (
            Self.oldMinimal.replacingOccurrences(of: #""enqueuedAt":0"#, with: #""enqueuedAt":"soon""#),
            "enqueuedAt: expected a number"
        ),
        (Self.oldMinimal.replacingOccurrences(of: #""headers":[]"#, with: #""headers":null"#), "headers: missing"),
        (String(Self.oldMinimal.dropLast()) + #","body":"%%%"}"#, "body: expected base64 text"),
    ])
    func aDamagedFileSaysWhatIsWrong(text: String, reason: String) {
        let error = #expect(throws: JSONValue.ShapeError.self) { try OutboxEntry(decoding: Array(text.utf8)) }
        #expect(error.map { "\($0)".contains(reason) } == true, "\(String(describing: error))")
    }

    @Test func aDamagedFileIsMovedToFailedAndTheOthersStayPending() throws {
        let directory = TemporaryDirectory()
        let outbox = Outbox(stateDirectory: directory.path)
        try outbox.store(try OutboxEntry(decoding: Array(Self.oldWebhook.utf8)))
        try AtomicFile.replace(outbox.directory + "/bad.json", with: Array("{".utf8), mode: 0o600)
        try AtomicFile.replace(outbox.directory + "/k-min.json", with: Array(Self.oldMinimal.utf8), mode: 0o600)
        let (entries, problems) = outbox.pending()
        #expect(entries.map(\.entry.idempotencyKey) == ["k-min", "0F8A2C1E-3B4D-4E5F-8A9B-0C1D2E3F4A5B"])
        #expect(problems.count == 1 && problems[0].hasPrefix("unreadable outbox entry 'bad.json' moved to failed/"))
        #expect(try sys_listDirectory(outbox.failedDirectory).get(call: "opendir") == ["bad.json"])
    }
}
