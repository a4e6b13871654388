import Foundation
import Glibc
import NetRulesCLI
import NetRulesTesting
import Testing

/// Issue 25, facts from the fleet: `subscribe: { NAME: TOPIC }` makes `mqtt.NAME` a fact of the
/// built daemon, against a real mosquitto on a unix socket: a message sets it and fires a rule,
/// the broker going away makes it unknown, and hostile payloads (controls, 1 MB, bytes that are
/// not UTF-8) stay bounded, escaped where shown and quoted where run.
@Suite(
    .timeLimit(.minutes(3)), .serialized,
    .enabled(
        if: Testbed.isAvailable && TestBroker.installed,
        "SKIPPED: needs root and mosquitto (apt-get install mosquitto mosquitto-clients)")
)
struct SubscribedFactsTests {
    static func rules(broker: TestBroker, in testbed: Testbed) -> String {
        """
        version: 1
        mqtt:
          broker: \(broker.url)
          client_id: subscriber-1
          discovery: false
          subscribe: { door: office/door/state, note: "notes/+" }
        rules:
          - name: door open
            when: { mqtt.door: open }
            do: [ { run: "printf '%s' {{mqtt.door}} > \(testbed.path("door.txt"))" } ]
          - name: note
            when: { fact: { key: mqtt.note, matches: "." } }
            do: [ { run: "printf '%s' {{mqtt.note}} > \(testbed.path("note.txt"))" } ]

        """
    }

    /// `netrules facts --json` (with the rule file, for the sources) as rows by key.
    static func facts(_ testbed: Testbed, rules: String) async throws -> [String: [String: Any]] {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: ["facts", "--json", "--socket", testbed.path("control.sock"), rules], stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin"], loop: .testLoop)
        guard code == 0 else { throw TestError("facts exited \(code): \(err.text)") }
        let document = try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any]
        let rows = document?["facts"] as? [[String: Any]] ?? []
        return Dictionary(rows.map { ($0["key"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    static func publish(_ broker: TestBroker, _ topic: String, file: String) async throws {
        _ = try await TestBroker.run("/usr/bin/mosquitto_pub", broker.clientArguments + ["-t", topic, "-f", file])
    }

    static func publish(_ broker: TestBroker, _ topic: String, _ message: String) async throws {
        _ = try await TestBroker.run("/usr/bin/mosquitto_pub", broker.clientArguments + ["-t", topic, "-m", message])
    }

    /// Publishes until `done` (the link subscribes a moment after it connects, and a message before
    /// that is lost): once a second, for at most 20 s.
    static func publishUntil(
        _ what: String, _ testbed: Testbed, publish: () async throws -> Void, done: () -> Bool
    ) async throws {
        for _ in 0..<20 {
            try await publish()
            do {
                try await eventually(what, timeout: .seconds(1), done)
                return
            } catch {
                // Not yet: publish again.
            }
        }
        throw TestError("timed out waiting for \(what); log:\n\(testbed.logTail())")
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    @Test func aMessageSetsTheFactAndFiresAndTheBrokerGoingAwayMakesItUnknown() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true)
            defer { broker.remove() }
            let rules = try testbed.write(Self.rules(broker: broker, in: testbed), to: "fleet.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await eventually("the link to connect (log: \(testbed.logTail()))") {
                testbed.log.contains("mqtt: connected to")
            }
            var rows = try await Self.facts(testbed, rules: rules)
            #expect(rows["mqtt.door"]?["state"] as? String == "unknown", "\(rows)")
            #expect(rows["mqtt.door"]?["source"] as? String == "mqtt office/door/state", "\(rows)")
            #expect(rows["mqtt.note"]?["source"] as? String == "mqtt notes/+", "\(rows)")

            // The link subscribes once connected; publish until the fact takes the value.
            let published = ContinuousClock.now
            try await Self.publishUntil("door.txt after a message on office/door/state", testbed) {
                try await Self.publish(broker, "office/door/state", "open")
            } done: {
                Self.contents(testbed.path("door.txt")) == Array("open".utf8)
            }
            print("SubscribedFactsTests: message to rule's action in \(ContinuousClock.now - published)")
            rows = try await Self.facts(testbed, rules: rules)
            #expect(rows["mqtt.door"]?["state"] as? String == "value", "\(rows)")
            #expect(rows["mqtt.door"]?["value"] as? String == "open", "\(rows)")

            // A JSON string is its contents.
            try await Self.publish(broker, "office/door/state", "\"closed\"")
            try await eventually("mqtt.door closed") {
                testbed.daemonFacts().contains(#""mqtt.door":"closed""#)
            }

            broker.stop()
            try await eventually("mqtt.door unknown once the broker is gone (\(testbed.daemonFacts()))") {
                let facts = testbed.daemonFacts()
                return facts.contains(#""unknown":["#) && !facts.contains(#""mqtt.door":"#)
            }
            rows = try await Self.facts(testbed, rules: rules)
            #expect(rows["mqtt.door"]?["state"] as? String == "unknown", "\(rows)")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    @Test func aReloadThatChangesSubscribeForgetsTheOldValuesAndOneThatDoesNotKeepsThem() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true)
            defer { broker.remove() }
            let first = Self.rules(broker: broker, in: testbed)
            let rules = try testbed.write(first, to: "fleet.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            try await Self.publishUntil("mqtt.door open", testbed) {
                try await Self.publish(broker, "office/door/state", "open")
            } done: {
                testbed.daemonFacts().contains(#""mqtt.door":"open""#)
            }
            // Only a rule changes: the link and its facts stay.
            try testbed.write(first.replacingOccurrences(of: "name: note", with: "name: note2"), to: "fleet.yaml")
            try await Self.reload(testbed)
            #expect(testbed.daemonFacts().contains(#""mqtt.door":"open""#), "\(testbed.daemonFacts())")
            // subscribe: changes: a new link, and mqtt.door unknown until its new topic says.
            try testbed.write(
                first.replacingOccurrences(of: "door: office/door/state", with: "door: office/door/other"),
                to: "fleet.yaml")
            try await Self.reload(testbed)
            try await eventually("mqtt.door unknown after the reload (\(testbed.daemonFacts()))") {
                !testbed.daemonFacts().contains(#""mqtt.door":"#)
            }
            try await Self.publishUntil("mqtt.door from the new topic", testbed) {
                try await Self.publish(broker, "office/door/other", "ajar")
            } done: {
                testbed.daemonFacts().contains(#""mqtt.door":"ajar""#)
            }
            // Two connections: at start and after the reload that changed subscribe:, none for the other.
            let connections = testbed.log.components(separatedBy: "mqtt: connected to").count - 1
            #expect(connections == 2, "\(testbed.logTail())")
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }

    static func reload(_ testbed: Testbed) async throws {
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let code = await NetRulesCommandLine.run(
            arguments: ["reload", "--socket", testbed.path("control.sock")], stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin"], loop: .testLoop)
        guard code == 0 else { throw TestError("reload exited \(code): \(out.text)\(err.text)") }
    }

    @Test func hostilePayloadsAreBoundedEscapedAndNeverRun() async throws {
        try await Testbed.run { testbed in
            let broker = try await TestBroker(unixSocket: true)
            defer { broker.remove() }
            let rules = try testbed.write(Self.rules(broker: broker, in: testbed), to: "fleet.yaml")
            let daemon = try await testbed.startDaemon(rules: [rules])
            let marker = testbed.path("rebooted")
            let hostile = "\u{1b}]0;x\u{7}\r$(touch \(marker))`touch \(marker)`;touch \(marker)"
            try await Self.publishUntil("note.txt after a hostile message", testbed) {
                try await Self.publish(broker, "notes/a", hostile)
            } done: {
                Self.contents(testbed.path("note.txt")) != nil
            }
            // The action got the exact text as one quoted word; nothing in it ran.
            #expect(Self.contents(testbed.path("note.txt")) == Array(hostile.utf8))
            #expect(!FileManager.default.fileExists(atPath: marker))
            // Shown escaped in `facts`' table, never raw.
            let table = try TestNamespace.shell(
                DaemonProcess.executable, "facts", "--socket", testbed.path("control.sock"), rules)
            #expect(!table.utf8.contains(0x1B) && !table.utf8.contains(0x07), "\(table.debugDescription)")
            #expect(table.contains(#"\x1b]0;x\x07\r$(touch"#), "\(table)")
            for command in [["status"], ["explain", "note"]] {
                let text = try TestNamespace.shell(
                    [DaemonProcess.executable] + command + ["--socket", testbed.path("control.sock")])
                #expect(!text.utf8.contains(0x1B) && !text.utf8.contains(0x07), "\(command): \(text.debugDescription)")
                #expect(text.contains(#"\x1b]0;x\x07\r$(touch"#), "\(command): \(text)")
            }

            // Not UTF-8: kept as exact bytes, which the action gets byte for byte.
            let invalid: [UInt8] = [0x6F, 0xFF, 0xFE, 0x0A, 0x80]
            let invalidFile = testbed.path("invalid.bin")
            try Data(invalid).write(to: URL(fileURLWithPath: invalidFile))
            unlink(testbed.path("note.txt"))
            // An empty message is known absent (how MQTT clears a topic): the rule's condition is false.
            _ = try await TestBroker.run("/usr/bin/mosquitto_pub", broker.clientArguments + ["-t", "notes/a", "-n"])
            try await eventually("mqtt.note absent (\(testbed.daemonFacts()))") {
                testbed.daemonFacts().contains(#""mqtt.note":null"#)
            }
            try await Self.publish(broker, "notes/b", file: invalidFile)
            try await eventually("note.txt after bytes that are not UTF-8 (log: \(testbed.logTail()))") {
                Self.contents(testbed.path("note.txt")) == invalid
            }

            // 1 MB: beyond the Maximum Packet Size the link's CONNECT declares, so the broker drops
            // it for this client and the daemon never holds it; a message sent after it arrives.
            let huge = testbed.path("huge.bin")
            try Data(repeating: 0x61, count: 1 << 20).write(to: URL(fileURLWithPath: huge))
            try await Self.publish(broker, "notes/c", file: huge)
            _ = try await TestBroker.run(
                "/usr/bin/mosquitto_pub", broker.clientArguments + ["-t", "notes/a", "-m", "after"])
            try await eventually("mqtt.note after the dropped 1 MB message (\(testbed.daemonFacts()))") {
                testbed.daemonFacts().contains(#""mqtt.note":"after""#)
            }
            #expect(!testbed.log.contains("1048576 bytes long"), "the 1 MB message reached the daemon")

            // 128 KiB (over the 64 KiB the packet size was, issue 33): within it, over the fact's
            // 1 KiB: refused with one log line, the fact unknown; the daemon's log stays small.
            let big = testbed.path("big.bin")
            try Data(repeating: 0x61, count: 128 * 1024).write(to: URL(fileURLWithPath: big))
            try await Self.publish(broker, "notes/c", file: big)
            try await Self.publish(broker, "notes/c", file: big)
            try await eventually("the refusal in the log (log: \(testbed.logTail()))") {
                testbed.log.contains("131072 bytes long")
            }
            try await eventually("mqtt.note unknown after the refused message (\(testbed.daemonFacts()))") {
                !testbed.daemonFacts().contains(#""mqtt.note":"#)
            }
            let refusals = testbed.log.components(separatedBy: "131072 bytes long").count - 1
            for line in testbed.log.split(separator: "\n") where line.contains("refused a message") {
                print("SubscribedFactsTests: \(line)")
            }
            #expect(refusals == 1, "\(testbed.logTail())")
            #expect(testbed.log.utf8.count < 64 * 1024, "the log holds \(testbed.log.utf8.count) bytes")
            #expect(!testbed.log.utf8.contains(0x1B), "the daemon's log holds a raw ESC")
            #expect(!FileManager.default.fileExists(atPath: marker))
            #expect(try await testbed.stop(daemon) == .exited(0))
        }
    }
}
