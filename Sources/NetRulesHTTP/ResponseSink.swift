internal import CCurl

/// Collects one transfer's headers and body from curl's callbacks.
///
/// Not thread-safe: curl calls it only from the thread running `curl_easy_perform`, and the
/// caller reads it after that returns. The cancellation flag lives in ``TransferControl``.
final class ResponseSink {
    private(set) var headers: [(String, String)] = []
    private(set) var body: [UInt8] = []
    private(set) var isTruncated = false
    private let maxBytes: Int
    private let control: TransferControl

    init(maxBytes: Int, control: TransferControl) {
        self.maxBytes = max(0, maxBytes)
        self.control = control
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name }?.1
    }

    /// Stores body bytes; returning fewer than offered makes curl stop with `CURLE_WRITE_ERROR`.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let room = maxBytes - body.count
        if bytes.count > room {
            body.append(contentsOf: bytes.prefix(room))
            isTruncated = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        // A new status line starts a new response (after "100 Continue"): forget earlier headers.
        if line.hasPrefix("HTTP/") {
            headers = []
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingSpaces()
        headers.append((name, value))
    }

    static let bodyCallback: curl_write_callback = { pointer, size, count, context in
        guard let context, let pointer else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        return sink.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
    }

    static let headerCallback: curl_write_callback = { pointer, size, count, context in
        guard let context, let pointer else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        sink.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
        return size * count
    }

    static let progressCallback: curl_xferinfo_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        return sink.control.isCancelled ? 1 : 0
    }
}

extension StringProtocol {
    /// Drops leading and trailing spaces, tabs, CR and LF (no Foundation here): a header field's
    /// value as HTTP reads it (curl's headers here, the portal probe's own in `NetRulesProbes`).
    package func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
