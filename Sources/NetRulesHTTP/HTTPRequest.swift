/// One HTTP request for ``HTTPClient``.
///
/// Redirects are never followed: a captive portal is recognised by its redirect, and a webhook
/// that redirects is misconfigured, so both callers want to see the 3xx itself. Certificates
/// are always verified for `https`; there is deliberately no switch to turn that off.
package struct HTTPRequest: Sendable {
    /// The absolute `http://` or `https://` URL. Other schemes are refused by the client.
    package var url: String
    /// The method, such as `GET`, `HEAD`, `POST` or `PUT`.
    package var method: String
    /// Header fields in the order they are sent.
    ///
    /// Never log these: webhook headers carry credentials.
    package var headers: [(String, String)]
    /// The request body, sent with any method; nil sends none.
    package var body: [UInt8]?
    /// The limit on the whole exchange, from resolving the name to the last body byte.
    package var timeout: Duration
    /// A separate, shorter limit on resolving and connecting; nil leaves only ``timeout``.
    package var connectTimeout: Duration?
    /// The interface to send from, such as `wlan0` (`CURLOPT_INTERFACE`); nil lets routing choose.
    ///
    /// The captive-portal probe binds to the default route's interface so that it tests the
    /// network the user is on, not a VPN or a second uplink.
    package var interface: String?
    /// A public-key pin in curl's syntax (`sha256//BASE64`, `CURLOPT_PINNEDPUBLICKEY`), checked
    /// on top of normal certificate verification; nil checks none.
    package var pinnedPublicKey: String?
    /// A PEM file of the certificate authorities to trust instead of the system's
    /// (`CURLOPT_CAINFO`, with `CURLOPT_CAPATH` cleared); nil trusts the system's.
    package var caFile: String?
    /// The most body bytes kept; the transfer stops there and the response is marked truncated.
    package var maxResponseBytes: Int
    /// Always false: redirects are returned, never followed. Present so callers can see the rule.
    package var followRedirects: Bool { false }

    /// One MiB: enough for any portal page or webhook reply, small enough to hold in memory.
    package static let defaultMaxResponseBytes = 1 << 20

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - method: The HTTP method (default `GET`).
    ///   - headers: Header fields, sent in order.
    ///   - body: A request body, or nil.
    ///   - timeout: The limit on the whole exchange (default 10 s).
    ///   - connectTimeout: A limit on resolving and connecting, or nil.
    ///   - interface: The interface to bind to, or nil.
    ///   - pinnedPublicKey: A public-key pin (`sha256//…`), or nil.
    ///   - caFile: A PEM bundle of the CAs to trust instead of the system's, or nil.
    ///   - maxResponseBytes: The body cap (default 1 MiB).
    package init(
        url: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(10), connectTimeout: Duration? = nil, interface: String? = nil,
        pinnedPublicKey: String? = nil, caFile: String? = nil,
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.interface = interface
        self.pinnedPublicKey = pinnedPublicKey
        self.caFile = caFile
        self.maxResponseBytes = maxResponseBytes
    }
}
