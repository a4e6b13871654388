import Foundation
import Glibc
import NetRulesCore
import NetRulesMQTT
import NetRulesTesting
import Synchronization
import Testing

@testable import NetRulesCLI

/// `netrules doctor`'s broker check (issue 25) against a real mosquitto: one connection as
/// `<client_id>-doctor` that reports the broker's answer and leaves the daemon's session alone.
@Suite(.timeLimit(.minutes(2)), .serialized)
struct DoctorMQTTTests {
    static let skipReason: Comment = "SKIPPED: mosquitto is not installed (apt-get install mosquitto mosquitto-clients)"

    /// Runs doctor on a rule file with `mqtt` as its `mqtt:` section; the `mqtt` check, the exit
    /// code and how long doctor took.
    static func doctor(mqtt: String, environment: [String: String] = [:]) async throws -> (
        check: [String: Any], code: Int32, seconds: Double
    ) {
        let (directory, file) = try DoctorCommandTests.rules(
            """
            version: 1
            mqtt:
            \(mqtt.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            rules:
              - { name: on-wifi, when: { network: wifi }, do: [ { run: "true" } ] }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = BufferedOutputSink()
        let err = BufferedOutputSink()
        let started = Date()
        let code = await NetRulesCommandLine.run(
            arguments: [
                "doctor", file, "--json", "--state-dir", directory.path, "--socket", directory.path + "/none.sock",
            ],
            stdout: out, stderr: err,
            environment: ["PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"]
                .merging(environment) { _, new in new }, loop: .testLoop)
        let seconds = Date().timeIntervalSince(started)
        let checks = try DoctorCommandTests.checks(out.text)
        let check = try #require(checks["mqtt"], "no mqtt check in \(out.text) \(err.text)")
        return (check, code, seconds)
    }

    static func log(_ broker: TestBroker) -> String {
        (try? String(contentsOfFile: broker.log, encoding: .utf8)) ?? ""
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func anAnonymousBrokerIsOkAndTheDaemonsSessionIsUndisturbed() async throws {
        let broker = try await TestBroker()
        defer { broker.remove() }
        // The daemon's own link, connected as laptop-1 and announcing itself.
        let (events, feed) = AsyncStream.makeStream(of: MQTTLink.Event.self)
        let seen = Mutex<[MQTTLink.Event]>([])
        let daemon = try MQTTLink(
            configuration: MQTTLink.Configuration(
                broker: .tcp(host: "127.0.0.1", port: broker.port, tls: false), clientID: "laptop-1",
                keepalive: .seconds(15), prefix: "netrules/laptop-1"),
            loop: .testLoop, logger: .disabled
        ) { event in
            seen.withLock { $0.append(event) }
            feed.yield(event)
        }
        let running = Task { try await daemon.run() }
        try await withGuard("the daemon's link connects") {
            for await event in events where event == .connected { return }
        }

        let r = try await Self.doctor(mqtt: "broker: \(broker.url)\nclient_id: laptop-1")
        #expect(r.check["status"] as? String == "ok", "\(r.check)")
        let detail = try #require(r.check["detail"] as? String)
        #expect(detail.contains("the broker \(broker.url) accepted a connection as laptop-1-doctor"), "\(detail)")
        #expect(r.code == 0)
        #expect(Self.log(broker).contains(" as laptop-1-doctor "), "\(Self.log(broker))")

        // The daemon's session stayed (a second laptop-1 would have taken it over) and doctor
        // published nothing: availability is still the daemon's `online`.
        #expect(daemon.state.0 == .connected)
        #expect(seen.withLock { $0 } == [.connected])
        #expect(!Self.log(broker).contains("laptop-1 already connected"))
        #expect(try await broker.retained("netrules/#") == ["netrules/laptop-1/availability online"])
        daemon.stop()
        try await running.value
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func aWrongPasswordIsTheBrokersRefusalAndAMissingOneAWarning() async throws {
        let broker = try await TestBroker(users: ["laptop-2": "correct horse"])
        defer { broker.remove() }
        let mqtt = "broker: \(broker.url)\nclient_id: laptop-2\nusername: laptop-2\npassword: \"{{env.MQTT_PASSWORD}}\""

        let wrong = try await Self.doctor(mqtt: mqtt, environment: ["MQTT_PASSWORD": "wrong"])
        #expect(wrong.check["status"] as? String == "error")
        #expect(
            wrong.check["detail"] as? String
                == "the broker \(broker.url) refused the connection: Not authorized "
                + "(tried as laptop-2-doctor, user laptop-2)")
        #expect(
            wrong.check["fix"] as? String
                == "check username: laptop-2 and the password in MQTT_PASSWORD against the broker's password file and ACL"
        )
        #expect(wrong.code == 1)

        let missing = try await Self.doctor(mqtt: mqtt)
        #expect(missing.check["status"] as? String == "warning")
        #expect(
            missing.check["detail"] as? String
                == "the broker \(broker.url) was not asked: MQTT_PASSWORD, the password of mqtt:, is not set in this "
                + "environment")

        let right = try await Self.doctor(mqtt: mqtt, environment: ["MQTT_PASSWORD": "correct horse"])
        #expect(right.check["status"] as? String == "ok", "\(right.check)")
        #expect(!"\(wrong.check)\(right.check)".contains("correct horse"))
        #expect(!"\(wrong.check)".contains("wrong"))
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func aBrokerCertificateFromAnotherCAIsATLSErrorAndNeverConnects() async throws {
        let certificates = TemporaryDirectory("netrules-doctor-tls")
        defer { certificates.remove() }
        let authority = try TestCertificateAuthority("broker", in: certificates.path)
        let other = try TestCertificateAuthority("other", in: certificates.path)
        let server = try authority.issue("server", commonName: "127.0.0.1", subjectAltNames: ["IP:127.0.0.1"])
        let broker = try await TestBroker(tls: (server.certificatePath, server.keyPath))
        defer { broker.remove() }
        let url = "mqtts://127.0.0.1:\(broker.port)"

        let refused = try await Self.doctor(
            mqtt: "broker: \(url)\nclient_id: laptop-3\nca_file: \(other.certificatePath)")
        #expect(refused.check["status"] as? String == "error")
        let detail = try #require(refused.check["detail"] as? String)
        #expect(detail.hasPrefix("cannot connect to \(url): the TLS handshake failed"), "\(detail)")
        #expect(detail.contains("(no fallback to an unverified connection)"))
        #expect(refused.code == 1)
        #expect(!Self.log(broker).contains("New client connected"), "\(Self.log(broker))")

        let verified = try await Self.doctor(
            mqtt: "broker: \(url)\nclient_id: laptop-3\nca_file: \(authority.certificatePath)")
        #expect(verified.check["status"] as? String == "ok", "\(verified.check)")
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func nothingListeningIsRefusedAtOnce() async throws {
        let port = try TestBroker.freePort()
        let r = try await Self.doctor(mqtt: "broker: mqtt://127.0.0.1:\(port)\nclient_id: laptop-4")
        #expect(r.check["status"] as? String == "error")
        #expect(
            r.check["detail"] as? String
                == "cannot connect to mqtt://127.0.0.1:\(port): (111) Connection refused "
                + "(tried as laptop-4-doctor)")
        #expect(r.check["fix"] as? String == "start the broker, or correct broker: in mqtt:")
        #expect(r.seconds < 5, "took \(r.seconds) s")
        #expect(r.code == 1)
    }

    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func aListenerThatNeverAnswersTimesOutAfterFiveSeconds() async throws {
        // A socket that listens and never accepts: the kernel completes the TCP handshake, and
        // the CONNECT is never answered.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(bound == 0 && listen(fd, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let r = try await Self.doctor(mqtt: "broker: mqtt://127.0.0.1:\(port)\nclient_id: laptop-5")
        #expect(r.check["status"] as? String == "error")
        #expect(
            r.check["detail"] as? String
                == "no answer from the broker mqtt://127.0.0.1:\(port) within 5 s (tried as laptop-5-doctor)"
        )
        #expect(r.seconds >= 5 && r.seconds < 7.5, "took \(r.seconds) s")
        #expect(r.code == 1)
    }

    /// mosquitto's TLS listener reached with mqtt://: TCP connects, the plain CONNECT is not TLS,
    /// and the broker closes the connection before any CONNACK.
    @Test(.enabled(if: TestBroker.installed, Self.skipReason))
    func aTLSPortReachedWithPlainMQTTIsNamedWithThePortAndTheScheme() async throws {
        let certificates = TemporaryDirectory("netrules-doctor-scheme")
        defer { certificates.remove() }
        let authority = try TestCertificateAuthority("broker", in: certificates.path)
        let server = try authority.issue("server", commonName: "127.0.0.1", subjectAltNames: ["IP:127.0.0.1"])
        let broker = try await TestBroker(tls: (server.certificatePath, server.keyPath))
        defer { broker.remove() }
        let url = "mqtt://127.0.0.1:\(broker.port)"

        let r = try await Self.doctor(mqtt: "broker: \(url)\nclient_id: laptop-6")
        #expect(r.check["status"] as? String == "error")
        let detail = try #require(r.check["detail"] as? String)
        #expect(detail.hasPrefix("the broker \(url) closed the connection before accepting it"), "\(detail)")
        #expect(
            r.check["fix"] as? String
                == "something at \(url) speaks TCP but not MQTT: a proxy, a captive network, or a TLS port reached "
                + "with mqtt://; check the port and the scheme of broker: in mqtt: (mqtt:// is plain MQTT, 1883 by "
                + "default; mqtts:// is TLS, 8883 by default)")
        #expect(r.code == 1)
    }

    /// A broker that took the connection and never sent CONNACK within the link's limit.
    @Test func aConnectionNeverAcceptedIsNamedAsSomethingThatDoesNotSpeakMQTT() {
        let settings = MQTTSettings(broker: .tcp(host: "hotel.example", port: 8883, tls: false))
        let fix = DoctorCommand.mqttFix(
            for: "the broker mqtt://hotel.example:8883 did not accept the connection within 10 s", settings)
        #expect(
            fix
                == "something at mqtt://hotel.example:8883 took the connection and never answered MQTT: a broker too "
                + "busy to answer, a proxy, a captive network, or a TLS port reached with mqtt://; check the port and "
                + "the scheme of broker: in mqtt: (mqtt:// is plain MQTT, 1883 by default; mqtts:// is TLS, 8883 by "
                + "default)")
    }

    @Test func withoutMQTTThereIsNoBrokerCheck() async throws {
        let (directory, file) = try DoctorCommandTests.rules(
            "version: 1\nrules:\n  - { name: r, when: { network: wifi }, do: [ { run: \"true\" } ] }\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = await DoctorCommandTests.run(
            ["doctor", file, "--json", "--state-dir", directory.path], bus: "unix:path=/nonexistent/bus")
        #expect(try DoctorCommandTests.checks(r.stdout)["mqtt"] == nil)
        #expect(try DoctorCommandTests.checks(r.stdout)["rules"] != nil)
    }
}
