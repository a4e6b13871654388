import NetRulesCore
import NetRulesMQTT
internal import NetRulesSystem

extension DoctorCommand {
    /// How long doctor waits for the broker's answer.
    static let mqttTimeLimit: Duration = .seconds(5)

    /// The suffix of doctor's client id: `<client_id>-doctor`.
    static let mqttClientIDSuffix = "-doctor"

    /// Connects once to the broker of `mqtt:` and reports its answer: connected, refused (and
    /// why), a TLS verification failure, no broker, or no answer within ``mqttTimeLimit``.
    ///
    /// The connection must not disturb the daemon's: it uses the client id `<client_id>-doctor`
    /// (a broker drops the older session of a client id that connects again), sets no Will and
    /// publishes nothing on the availability topic (`MQTTLink.connectOnce`).
    ///
    /// The password: doctor runs as a user, so it reads the variable of `password:` from its
    /// own environment, as the daemon reads it from its own. Without it the broker is not
    /// asked (a connection without the password would only report a refusal the daemon would
    /// not get), and the check is a warning, not an error: the daemon may well have it.
    static func mqttCheck(
        _ settings: MQTTSettings, environment: [String: String], loop: ThreadExecutor
    ) async -> DoctorCheck {
        let name = "mqtt"
        let daemonID: String
        do {
            daemonID = try settings.clientID ?? MachineClientID.derive()
        } catch {
            return .error(name, "\(error)", fix: "set client_id: in mqtt:")
        }
        let clientID = daemonID + mqttClientIDSuffix
        var password: String?
        if let variable = settings.passwordVariable {
            guard let value = environment[variable], !value.isEmpty else {
                return .warning(
                    name,
                    "the broker \(settings.broker) was not asked: \(variable), the password of mqtt:, is not set in "
                        + "this environment",
                    fix:
                        "doctor reads \(variable) from its own environment, as the daemon reads it from its own "
                        + "(/etc/netrules/environment): set \(variable) for doctor and run it again")
            }
            password = value
        }
        let configuration = MQTTLink.Configuration(
            broker: settings.broker, clientID: clientID, username: settings.username, password: password,
            caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile,
            insecure: settings.insecure, keepalive: settings.keepalive, prefix: settings.prefix(clientID: daemonID))
        let answer: MQTTLink.Answer
        do {
            answer = try await MQTTLink.connectOnce(configuration, within: mqttTimeLimit, on: loop)
        } catch {
            return .error(
                name, "cannot check the broker \(settings.broker): \(error)",
                fix: "install libmosquitto1 (apt-get install libmosquitto1); the daemon needs it for mqtt: too")
        }
        let who = clientID + (settings.username.map { ", user \($0)" } ?? "")
        switch answer {
        case .connected:
            return .ok(
                name,
                "the broker \(settings.broker) accepted a connection as \(who); doctor connected beside the daemon "
                    + "(client id \(daemonID)), with no Will and publishing nothing")
        case .failed(let reason):
            return .error(name, reason + " (tried as \(who))", fix: mqttFix(for: reason, settings))
        case .timedOut:
            return .error(
                name,
                "no answer from the broker \(settings.broker) within \(mqttTimeLimit.components.seconds) s "
                    + "(tried as \(who))",
                fix: "check that the broker runs and answers MQTT there, and that no firewall drops the connection")
        }
    }

    /// The fix for a failed connection, from the kind of failure `MQTTLink` reported.
    static func mqttFix(for reason: String, _ settings: MQTTSettings) -> String {
        if reason.contains("refused the connection") {
            guard let username = settings.username else {
                return "the broker does not accept anonymous clients: set username: and password: in mqtt:"
            }
            let password = settings.passwordVariable.map { " and the password in \($0)" } ?? ""
            return "check username: \(username)\(password) against the broker's password file and ACL"
        }
        if reason.contains("TLS handshake") {
            return "give ca_file: the CA that signed the broker's certificate, and a certificate that names the "
                + "broker's host; netrules never falls back to an unverified connection"
        }
        if reason.contains("TLS files") {
            return "check that ca_file, cert_file and key_file exist and can be read"
        }
        // The TCP connection was made, and no CONNACK came: what listens there is not an MQTT
        // broker, or not one that speaks what the scheme says.
        let notMQTT =
            "a proxy, a captive network, or a TLS port reached with mqtt://; check the port and the scheme of "
            + "broker: in mqtt: (mqtt:// is plain MQTT, 1883 by default; mqtts:// is TLS, 8883 by default)"
        if reason.contains("closed the connection before accepting it") {
            return "something at \(settings.broker) speaks TCP but not MQTT: \(notMQTT)"
        }
        if reason.contains("did not accept the connection within") {
            return "something at \(settings.broker) took the connection and never answered MQTT: a broker too busy "
                + "to answer, \(notMQTT)"
        }
        return "start the broker, or correct broker: in mqtt:"
    }
}
