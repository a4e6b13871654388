internal import CMosquitto
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// One connection attempt, on a thread of its own: a new client (so nothing of an earlier
/// connection is resent by libmosquitto behind the callers' backs, and the CA store is read once
/// per attempt), its options, and the blocking mosquitto_connect (DNS, TCP, TLS, then CONNECT).
struct Attempt {
    /// A client handed from the attempt's thread to the loop.
    ///
    /// `@unchecked Sendable`: the attempt's thread stops touching it once it is handed over, and
    /// only the loop touches it after that.
    struct Client: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    enum Outcome: Sendable {
        /// CONNECT went out from `localAddress` (nil: a unix socket, or unknown).
        case opened(Client, IPAddress?)
        case failed(LinkMachine.Failure)
    }

    let configuration: MQTTLink.Configuration
    /// The loop, for the callbacks (which only run inside its libmosquitto calls, on the loop).
    let loop: Loop

    func run() -> Outcome {
        guard let client = makeClient() else {
            return .failed(.rejected("cannot make an MQTT client for \(configuration.broker) (out of memory)"))
        }
        if let problem = configureTLS(client) {
            netrules_mosquitto_destroy(client)
            return .failed(.rejected(problem))
        }
        let (host, port): (String, Int32) =
            switch configuration.broker {
            case .tcp(let host, let port, _): (host, Int32(port))
            case .unix(let path): (path, 0)
            }
        let keepalive = Int32(configuration.keepalive.components.seconds)
        // MQTT 5's Maximum Packet Size: the broker must drop, not send, a bigger message to this
        // client, so what any publisher on a subscribed topic sends cannot cost more memory here.
        var properties: OpaquePointer?
        defer { netrules_mosquitto_property_free_all(&properties) }
        netrules_mosquitto_property_add_int32(
            &properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), MQTTLink.maximumIncomingPacket)
        errno = 0
        let rc = netrules_mosquitto_connect_bind_v5(client, host, port, keepalive, nil, properties)
        let failedErrno = errno
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            netrules_mosquitto_destroy(client)
            return .failed(failure(rc, errno: failedErrno))
        }
        return .opened(Client(pointer: client), Self.localAddress(of: netrules_mosquitto_socket(client)))
    }

    func makeClient() -> OpaquePointer? {
        let userdata = Unmanaged.passUnretained(loop).toOpaque()
        guard let h = netrules_mosquitto_new(configuration.clientID, true, userdata) else { return nil }
        netrules_mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V5))
        if let username = configuration.username {
            netrules_mosquitto_username_pw_set(h, username, configuration.password)
        }
        if configuration.announces {
            let offline = Array("offline".utf8)
            _ = offline.withUnsafeBytes { bytes in
                netrules_mosquitto_will_set_v5(
                    h, configuration.availabilityTopic, Int32(bytes.count), bytes.baseAddress, 1, true, nil)
            }
        }
        netrules_mosquitto_connect_v5_callback_set(h) { _, userdata, rc, _, _ in
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().connack(Int(rc))
        }
        netrules_mosquitto_disconnect_v5_callback_set(h) { _, userdata, rc, _ in
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().disconnected(Int(rc))
        }
        netrules_mosquitto_message_v5_callback_set(h) { _, userdata, message, _ in
            guard let message else { return }
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().received(message.pointee)
        }
        netrules_mosquitto_publish_v5_callback_set(h) { _, userdata, mid, reason, _ in
            Unmanaged<Loop>.fromOpaque(userdata!).takeUnretainedValue().acknowledged(mid, reason: reason)
        }
        return h
    }

    /// TLS options; an error in words, or nil.
    func configureTLS(_ h: OpaquePointer) -> String? {
        guard configuration.broker.usesTLS else { return nil }
        if configuration.caFile == nil {
            netrules_mosquitto_int_option(h, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
        }
        let rc = netrules_mosquitto_tls_set(
            h, configuration.caFile, configuration.caFile == nil ? "/etc/ssl/certs" : nil, configuration.certFile,
            configuration.keyFile)
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            return "cannot use the TLS files (ca_file, cert_file, key_file) for \(configuration.broker): "
                + Loop.describe(rc)
        }
        netrules_mosquitto_tls_insecure_set(h, configuration.insecure)
        return nil
    }

    /// Why connecting failed, in words, and whether anything answered: a TLS failure says which
    /// trust failed and that there is no fallback.
    func failure(_ rc: Int32, errno code: CInt) -> LinkMachine.Failure {
        let broker = configuration.broker
        if rc == MOSQ_ERR_TLS.rawValue {
            let host: String =
                switch broker {
                case .tcp(let host, _, _): host
                case .unix(let path): path
                }
            return .rejected(
                "cannot connect to \(broker): the TLS handshake failed: the broker's certificate is not trusted by "
                    + "\(configuration.caFile ?? "the system's CAs") or does not name \(host) "
                    + "(no fallback to an unverified connection)")
        }
        if rc == MOSQ_ERR_ERRNO.rawValue, code != 0 {
            return .unreachable("cannot connect to \(broker): \(Errno(rawValue: code))")
        }
        if rc == MOSQ_ERR_EAI.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue || rc == MOSQ_ERR_ERRNO.rawValue {
            return .unreachable("cannot connect to \(broker): \(Loop.describe(rc))")
        }
        return .rejected("cannot connect to \(broker): \(Loop.describe(rc))")
    }

    /// The local IP address of a connected TCP socket, or nil (a unix socket, or unknown).
    static func localAddress(of fd: CInt) -> IPAddress? {
        guard fd >= 0 else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sys_getsockname(fd, $0, &length) }
        }
        guard case .success = result else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { raw in
                let address = raw.load(fromByteOffset: 4, as: UInt32.self)  // sin_addr, network order
                return .v4(UInt32(bigEndian: address))
            }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { raw in .v6(Array(raw[8..<24])) }  // sin6_addr
        default:
            return nil
        }
    }
}
