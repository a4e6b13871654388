/// One entry of a place's `verify:` list: a TLS server and the public keys it may present.
public struct PlaceProof: Hashable, Sendable, CustomStringConvertible {
    /// The host name (also sent as SNI) or address to connect to.
    public var host: String
    /// The TCP port; 443 unless given.
    public var port: Int
    /// The accepted pins, `sha256//` plus the base64 SHA-256 of the SubjectPublicKeyInfo; several
    /// allow a key rotation.
    public var pins: [String]

    /// Creates a proof of `host:port` accepting any of `pins`.
    public init(host: String, port: Int = 443, pins: [String]) {
        self.host = host
        self.port = port
        self.pins = pins
    }

    /// `https://HOST:PORT/`, the URL the handshake is made to (IPv6 in brackets).
    public var url: String {
        let written = host.contains(":") ? "[\(host)]" : host
        return "https://\(written):\(port)/"
    }

    /// `HOST:PORT`, as `explain` and the reasons show it.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether `text` is a pin netrules accepts: `sha256//` and 44 base64 characters (32 bytes,
    /// so ending in one `=`), curl's `CURLOPT_PINNEDPUBLICKEY` form.
    public static func isValidPin(_ text: String) -> Bool {
        guard text.hasPrefix("sha256//") else { return false }
        let body = Array(text.utf8.dropFirst(8))
        guard body.count == 44, body[43] == UInt8(ascii: "=") else { return false }
        return body[..<43].allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "/")
        }
    }
}
