internal import CCurl

/// One blocking transfer, on a pooled curl easy handle (connections kept for reuse) or a fresh one.
enum CurlTransfer {
    /// Loads libcurl on first use (and runs `curl_global_init` once); nil when it loaded, else why not.
    static func loadLibrary() -> String? {
        var message = [CChar](repeating: 0, count: 256)
        guard netrules_curl_load(&message, message.count) != 0 else { return nil }
        return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether libcurl is mapped into this process.
    static var isLibraryLoaded: Bool { netrules_curl_is_loaded() != 0 }

    /// Runs `request`, blocking, on a handle of `pool` (checked in again afterwards), or without
    /// a pool on a fresh handle whose connection is closed at the end.
    static func perform(_ request: HTTPRequest, control: TransferControl, pool: CurlHandlePool?) -> TransferResult {
        if let failure = loadLibrary() {
            return .failure(HTTPError(code: .other, message: failure))
        }
        let pooled = pool?.checkOut(CurlHandlePool.Key(request))
        guard let handle = pooled?.pointer ?? (pool == nil ? netrules_curl_easy_init() : nil) else {
            return .failure(HTTPError(code: .other, message: "curl_easy_init failed"))
        }
        // Declared first, so it runs last: after the header list and error buffer are freed, and
        // `checkIn` resets the options that pointed at them.
        defer {
            if let pooled { pool?.checkIn(pooled) } else { netrules_curl_easy_cleanup(handle) }
        }
        let sink = ResponseSink(maxBytes: request.maxResponseBytes, control: control)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { netrules_curl_slist_free_all(headerList) }
        // curl writes its detailed message here; it must live until curl_easy_cleanup.
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        return withExtendedLifetime(sink) { () -> TransferResult in
            do throws(HTTPError) {
                try configure(handle, request, sink: sink, errorBuffer: errorBuffer, headerList: &headerList)
            } catch {
                return .failure(error)
            }
            let clock = ContinuousClock()
            let started = clock.now
            let code = netrules_curl_easy_perform(handle)
            let duration = clock.now - started
            if code != CURLE_OK && !(code == CURLE_WRITE_ERROR && sink.isTruncated) {
                let detail = String(cString: errorBuffer)
                let message = detail.isEmpty ? String(cString: netrules_curl_easy_strerror(code)) : detail
                return .failure(HTTPError(code: errorCode(code), message: message, curlCode: Int(code.rawValue)))
            }
            var status = 0
            _ = netrules_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            var redirect: UnsafePointer<CChar>?
            _ = netrules_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &redirect)
            let response = HTTPResponse(
                status: status, headers: sink.headers, body: sink.body, isTruncated: sink.isTruncated,
                location: redirect.map { String(cString: $0) } ?? sink.header("location"), duration: duration)
            return .success(response)
        }
    }

    private static func configure(
        _ handle: UnsafeMutableRawPointer, _ request: HTTPRequest, sink: ResponseSink,
        errorBuffer: UnsafeMutablePointer<CChar>, headerList: inout UnsafeMutablePointer<curl_slist>?
    ) throws(HTTPError) {
        func check(_ code: CURLcode, _ what: String) throws(HTTPError) {
            guard code == CURLE_OK else {
                let reason = String(cString: netrules_curl_easy_strerror(code))
                throw HTTPError(code: .invalidRequest, message: "\(what): \(reason)", curlCode: Int(code.rawValue))
            }
        }
        try check(netrules_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "error buffer")
        try check(netrules_curl_setopt_string(handle, CURLOPT_URL, request.url), "URL")
        try check(netrules_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols")
        try check(netrules_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "redirects")
        // Timeouts must not use SIGALRM in a multi-threaded process (curl_easy_setopt(3), CURLOPT_NOSIGNAL).
        try check(netrules_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "signals")
        // An empty proxy disables http_proxy & co.: a probe must test the network, not a proxy.
        try check(netrules_curl_setopt_string(handle, CURLOPT_PROXY, ""), "proxy")
        try check(netrules_curl_setopt_string(handle, CURLOPT_USERAGENT, "netrules"), "user agent")
        try check(netrules_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(request.timeout)), "timeout")
        // A kept connection idle for more than a minute is closed when this transfer looks for one,
        // not reused: servers drop idle ones about then (nginx after 75 s), and no timer of ours
        // closes it earlier (design note 0012).
        try check(netrules_curl_setopt_long(handle, CURLOPT_MAXAGE_CONN, maximumIdleSeconds), "connection age")
        if let connectTimeout = request.connectTimeout {
            let ms = milliseconds(connectTimeout)
            try check(netrules_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, ms), "connect timeout")
        }
        if let interface = request.interface {
            // "if!" makes curl treat the name strictly as an interface, never as a host name to resolve.
            try check(netrules_curl_setopt_string(handle, CURLOPT_INTERFACE, "if!\(interface)"), "interface")
        }
        if let pin = request.pinnedPublicKey {
            try check(netrules_curl_setopt_string(handle, CURLOPT_PINNEDPUBLICKEY, pin), "pinned public key")
        }
        if let caFile = request.caFile {
            try check(netrules_curl_setopt_string(handle, CURLOPT_CAINFO, caFile), "CA file")
            // Debian's libcurl also trusts the directory /etc/ssl/certs (its built-in CAPATH);
            // NULL turns that off, so the file's CAs are the only ones (curl_easy_setopt(3), CURLOPT_CAPATH).
            try check(netrules_curl_setopt_string(handle, CURLOPT_CAPATH, nil), "CA directory")
        }
        switch request.method {
        case "GET": break
        case "HEAD": try check(netrules_curl_setopt_long(handle, CURLOPT_NOBODY, 1), "method")
        default: try check(netrules_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method), "method")
        }
        var headers = request.headers
        if let body = request.body {
            let size = curl_off_t(body.count)
            try check(netrules_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, size), "body size")
            // COPYPOSTFIELDS copies, so the Swift array need not outlive this call.
            let code = body.withUnsafeBytes { bytes in
                netrules_curl_setopt_pointer(
                    handle, CURLOPT_COPYPOSTFIELDS,
                    UnsafeMutableRawPointer(
                        mutating: bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)))
            }
            try check(code, "body")
            if request.method == "GET" {
                try check(netrules_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, "GET"), "method")
            }
            // curl would otherwise wait up to a second for "100 Continue" before sending a large body.
            headers.append(("Expect", ""))
        }
        for (name, value) in headers {
            // "Name;" is curl's spelling for a header with an empty value; "Name:" would remove it.
            let line = value.isEmpty && name != "Expect" ? "\(name);" : "\(name): \(value)"
            guard let appended = netrules_curl_slist_append(headerList, line) else {
                throw HTTPError(code: .other, message: "out of memory building headers")
            }
            headerList = appended
        }
        try check(netrules_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), "headers")

        let context = Unmanaged.passUnretained(sink).toOpaque()
        try check(netrules_curl_setopt_write_callback(handle, ResponseSink.bodyCallback), "body callback")
        try check(netrules_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context), "body context")
        try check(netrules_curl_setopt_header_callback(handle, ResponseSink.headerCallback), "header callback")
        try check(netrules_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context), "header context")
        try check(netrules_curl_setopt_xferinfo_callback(handle, ResponseSink.progressCallback), "progress callback")
        try check(netrules_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context), "progress context")
        try check(netrules_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0), "progress")
    }

    /// Connects, makes the TLS handshake and stops (`CURLOPT_CONNECT_ONLY`), blocking.
    static func handshake(_ handshake: TLSHandshake) -> TLSHandshake.Outcome {
        if let failure = loadLibrary() {
            return .failed(HTTPError(code: .other, message: failure))
        }
        guard let handle = netrules_curl_easy_init() else {
            return .failed(HTTPError(code: .other, message: "curl_easy_init failed"))
        }
        defer { netrules_curl_easy_cleanup(handle) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        func check(_ code: CURLcode, _ what: String) throws(HTTPError) {
            guard code == CURLE_OK else {
                let reason = String(cString: netrules_curl_easy_strerror(code))
                throw HTTPError(code: .invalidRequest, message: "\(what): \(reason)", curlCode: Int(code.rawValue))
            }
        }
        do throws(HTTPError) {
            try check(netrules_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "error buffer")
            try check(netrules_curl_setopt_string(handle, CURLOPT_URL, handshake.url), "URL")
            try check(netrules_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https"), "protocols")
            try check(netrules_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "signals")
            try check(netrules_curl_setopt_string(handle, CURLOPT_PROXY, ""), "proxy")
            try check(netrules_curl_setopt_long(handle, CURLOPT_CONNECT_ONLY, 1), "connect only")
            try check(netrules_curl_setopt_long(handle, CURLOPT_CERTINFO, 1), "certificate info")
            let ms = milliseconds(handshake.timeout)
            try check(netrules_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, ms), "timeout")
            try check(netrules_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, ms), "connect timeout")
            let verify = handshake.verifiesChain
            try check(netrules_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, verify ? 1 : 0), "peer verification")
            try check(netrules_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, verify ? 2 : 0), "host verification")
            if !handshake.pins.isEmpty {
                let pins = handshake.pins.joined(separator: ";")
                try check(netrules_curl_setopt_string(handle, CURLOPT_PINNEDPUBLICKEY, pins), "pinned public key")
            }
            if let interface = handshake.interface {
                try check(netrules_curl_setopt_string(handle, CURLOPT_INTERFACE, "if!\(interface)"), "interface")
            }
        } catch {
            return .failed(error)
        }
        let code = netrules_curl_easy_perform(handle)
        let leaf = leafCertificate(handle)
        switch code {
        case CURLE_OK:
            return .completed(leaf)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .mismatch(presented: leaf)
        default:
            let detail = String(cString: errorBuffer)
            let message = detail.isEmpty ? String(cString: netrules_curl_easy_strerror(code)) : detail
            return .failed(HTTPError(code: errorCode(code), message: message, curlCode: Int(code.rawValue)))
        }
    }

    /// The first certificate of the chain curl saw (`CURLINFO_CERTINFO`), read with libcrypto.
    private static func leafCertificate(_ handle: UnsafeMutableRawPointer) -> CertificateSummary? {
        var info: UnsafeMutablePointer<curl_certinfo>?
        guard netrules_curl_getinfo_certinfo(handle, &info) == CURLE_OK, let info, info.pointee.num_of_certs > 0,
            var entry = info.pointee.certinfo?[0]
        else { return nil }
        while true {
            if let data = entry.pointee.data {
                let line = String(cString: data)
                if line.hasPrefix("Cert:") {
                    // A certificate that does not parse has no summary to show; the transfer's
                    // result does not depend on it.
                    return try? CertificateSummary.read(pem: Array(line.utf8.dropFirst(5)))
                }
            }
            guard let next = entry.pointee.next else { return nil }
            entry = next
        }
    }

    /// How long a kept connection may sit idle and still be reused (`CURLOPT_MAXAGE_CONN`).
    static let maximumIdleSeconds = 60

    /// Whole milliseconds, rounded up and at least 1: curl reads 0 as "no timeout".
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(1, ms))
    }

    private static func errorCode(_ code: CURLcode) -> HTTPError.Code {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: .timeout
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .couldNotResolve
        case CURLE_COULDNT_CONNECT, CURLE_INTERFACE_FAILED: .couldNotConnect
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE:
            .tls
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT: .invalidRequest
        case CURLE_ABORTED_BY_CALLBACK: .cancelled
        default: .other
        }
    }
}
