/// One TLS handshake to a server, to learn or check the public key it presents.
///
/// libcurl makes the connection and the handshake (`CURLOPT_CONNECT_ONLY`): no HTTP request is
/// sent, so a server sees a handshake and nothing else. With pins, curl checks them itself
/// (`CURLOPT_PINNEDPUBLICKEY`) and fails a mismatch before anything could be sent. A place's proof
/// does not verify the chain (`verifiesChain` false): its trust anchor is the pin, which is what
/// lets a home NAS with a self-signed certificate prove the network. The certificate presented is
/// read back (`CURLOPT_CERTINFO`), so a mismatch can say which key came instead.
package struct TLSHandshake: Sendable {
    /// What the handshake concluded.
    package enum Outcome: Sendable {
        /// The handshake completed (and with pins, one matched); the leaf certificate when curl
        /// reported it.
        case completed(CertificateSummary?)
        /// The server's key matches none of the pins (`CURLE_SSL_PINNEDPUBKEYNOTMATCH`); what it
        /// presented, when curl reported it.
        case mismatch(presented: CertificateSummary?)
        /// No handshake: resolution, connection, timeout or TLS failure.
        case failed(HTTPError)
    }

    /// The host name (sent as SNI) or address.
    package var host: String
    /// The TCP port.
    package var port: Int
    /// The accepted pins (`sha256//…`); empty checks none (`netrules pin` learns the key).
    package var pins: [String]
    /// Whether the certificate chain and name are verified as for any https request; false when
    /// the pin alone is the trust anchor.
    package var verifiesChain: Bool
    /// The limit on resolving, connecting and the handshake together.
    package var timeout: Duration
    /// The interface to connect from (`CURLOPT_INTERFACE`), or nil to let routing choose.
    package var interface: String?

    /// Creates a handshake to `host:port`.
    package init(
        host: String, port: Int, pins: [String] = [], verifiesChain: Bool = false, timeout: Duration = .seconds(3),
        interface: String? = nil
    ) {
        self.host = host
        self.port = port
        self.pins = pins
        self.verifiesChain = verifiesChain
        self.timeout = timeout
        self.interface = interface
    }

    /// `https://HOST:PORT/` (an IPv6 address in brackets).
    package var url: String {
        let written = host.contains(":") ? "[\(host)]" : host
        return "https://\(written):\(port)/"
    }

    /// Makes the handshake on `executor` (a thread of its own by default); bounded by `timeout`.
    package func perform(executor: BlockingExecutor = .dedicatedThreads) async -> Outcome {
        let handshake = self
        return await executor.run { CurlTransfer.handshake(handshake) }
    }
}
