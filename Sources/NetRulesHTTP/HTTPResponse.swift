/// The answer to an ``HTTPRequest``: any status counts as an answer, 3xx, 4xx and 5xx included.
package struct HTTPResponse: Sendable {
    /// The status code, such as 200, 204, 302 or 511.
    package var status: Int
    /// The header fields of the final response, in the order received, names as sent.
    package var headers: [(String, String)]
    /// The body, at most the request's ``HTTPRequest/maxResponseBytes``.
    package var body: [UInt8]
    /// Whether the body was cut at ``HTTPRequest/maxResponseBytes``.
    package var isTruncated: Bool
    /// Where a redirect points, resolved against the request URL; else the raw `Location` header.
    package var location: String?
    /// The time from starting the request to the last byte, on a monotonic clock.
    package var duration: Duration

    /// Creates a response (tests and fakes build these).
    package init(
        status: Int, headers: [(String, String)] = [], body: [UInt8] = [], isTruncated: Bool = false,
        location: String? = nil, duration: Duration = .zero
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.isTruncated = isTruncated
        self.location = location
        self.duration = duration
    }

    /// The first header field called `name`, compared without regard to case.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }
}
