import NetRulesCore
import NetRulesHTTP
import NetRulesSystem

/// Runs the captive-portal probes of a ``ConnectivitySettings`` in parallel and classifies.
///
/// Each probe is a plain-HTTP GET whose redirect is never followed (`PortalFetch`, without
/// libcurl). The first conclusive answer wins and cancels the rest:
/// - the expected status with the expected page text (or an empty body when none is
///   configured) means `online`;
/// - a 3xx, a 511, or a 2xx with other content means `portal`, and the redirect target (else
///   the probe's own URL) becomes `portal.url` if ``ReportedURL`` keeps it (a refused `Location`
///   leaves `portal.url` null, and the evidence says why);
/// - other statuses and errors prove nothing. When nothing is conclusive the verdict is `offline`.
package struct PortalClassifier: Sendable {
    var executor: BlockingExecutor
    var loop: ThreadExecutor
    var timeout: Duration
    var interface: String?

    /// - Parameters:
    ///   - executor: where the probes' blocking work runs (tests use a namespace).
    ///   - loop: the event loop whose timers bound the name look-ups.
    ///   - timeout: the limit on each probe.
    ///   - interface: bind the probes to this interface; nil lets routing choose.
    package init(
        executor: BlockingExecutor = .dedicatedThreads, loop: ThreadExecutor, timeout: Duration,
        interface: String? = nil
    ) {
        self.executor = executor
        self.loop = loop
        self.timeout = timeout
        self.interface = interface
    }

    /// Page bodies larger than this are a login page, not a success page: no need to read more.
    static let bodyLimit = 64 * 1024

    /// One classification of the network, with the evidence of every probe that finished.
    package func classify(_ probes: [ConnectivitySettings.Probe]) async -> PortalVerdict {
        let clock = ContinuousClock()
        let started = clock.now
        return await withTaskGroup(of: PortalVerdict.Evidence.self) { group in
            for probe in probes {
                group.addTask { await run(probe) }
            }
            var evidence: [PortalVerdict.Evidence] = []
            for await item in group {
                evidence.append(item)
                guard let conclusion = item.conclusion else { continue }
                group.cancelAll()
                var url: String?
                if conclusion == .portal, item.locationRefusal == nil {
                    url = item.location
                    // The probe's own URL passed `ProbeURL`; it is checked like any reported URL all the same.
                    if url == nil, case .success(let own) = ReportedURL.checked(item.url) { url = own }
                }
                return PortalVerdict(
                    connectivity: conclusion, portalURL: url, decidingProbe: item, evidence: evidence,
                    duration: clock.now - started)
            }
            return PortalVerdict(
                connectivity: .offline, portalURL: nil, decidingProbe: nil, evidence: evidence,
                duration: clock.now - started)
        }
    }

    private func run(_ probe: ConnectivitySettings.Probe) async -> PortalVerdict.Evidence {
        let request = HTTPRequest(
            url: probe.url, headers: [("Cache-Control", "no-cache")], timeout: timeout, interface: interface,
            maxResponseBytes: Self.bodyLimit)
        let clock = ContinuousClock()
        let started = clock.now
        do {
            let response = try await PortalFetch.send(request, executor: executor, loop: loop)
            var location: String?
            var refusal: String?
            switch response.location.map(ReportedURL.checked) {
            case .success(let kept)?: location = kept
            case .failure(let refused)?: refusal = refused.reason
            case nil: break
            }
            return PortalVerdict.Evidence(
                url: probe.url, status: response.status, location: location, locationRefusal: refusal, error: nil,
                duration: response.duration, conclusion: Self.conclusion(for: response, expecting: probe),
                reason: Self.reason(for: response, location: location, expecting: probe))
        } catch {
            return PortalVerdict.Evidence(
                url: probe.url, status: nil, location: nil, error: error.description,
                duration: clock.now - started, conclusion: nil)
        }
    }

    /// What one response means on its own (pure; the tests walk every branch).
    static func conclusion(for response: HTTPResponse, expecting probe: ConnectivitySettings.Probe) -> PortalVerdict
        .Connectivity?
    {
        if response.status == probe.expectedStatus && matches(response.body, probe.expectedBody) {
            return .online
        }
        switch response.status {
        case 300...399, 511: return .portal
        case 200...299: return .portal
        default: return nil
        }
    }

    /// Why `response` counts as what ``conclusion(for:expecting:)`` says (pure): the status, the
    /// page and the redirect against the answer that means online. `location` is the kept `Location`.
    static func reason(
        for response: HTTPResponse, location: String?, expecting probe: ConnectivitySettings.Probe
    ) -> String {
        let status = response.status
        let online = "online is \(probe.expectedStatus) with \(expectedPage(probe.expectedBody))"
        if status == probe.expectedStatus && matches(response.body, probe.expectedBody) {
            return "\(status) with \(expectedPage(probe.expectedBody)): the answer that means online"
        }
        let size = "\(response.body.count)\(response.isTruncated ? " or more" : "") bytes"
        switch status {
        case 300...399:
            let target = location.map { " to \($0)" } ?? (response.location == nil ? " without a Location" : "")
            return "a redirect (\(status))\(target): a portal's; \(online)"
        case 511:
            return "511 Network Authentication Required: a portal's status"
        case probe.expectedStatus where probe.expectedBody == nil:
            return "\(status) with a page (\(size)) where online is an empty body: a portal's page"
        case probe.expectedStatus:
            return "\(status) with another page (\(size)) than '\(probe.expectedBody ?? "")': a portal's page"
        case 200...299:
            return "\(status) where \(online): a portal's answer"
        default:
            return "\(status), which proves nothing either way"
        }
    }

    /// `the page 'Success'` or `an empty body`.
    private static func expectedPage(_ body: String?) -> String {
        body.map { "the page '\($0)'" } ?? "an empty body"
    }

    /// Whether `body` is the expected page: its text (tags removed, whitespace trimmed) equals
    /// `expected`, or it is empty when nothing is expected.
    ///
    /// Apple's page is `<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>`;
    /// a configured plain-text endpoint answers just `Success`. Both match `Success`.
    static func matches(_ body: [UInt8], _ expected: String?) -> Bool {
        let text = String(decoding: body, as: UTF8.self)
        guard let expected else { return text.allSatisfy(\.isWhitespace) }
        if text.trimmingWhitespace() == expected { return true }
        // ASCII-only lower-casing keeps byte offsets, so the ranges found apply to `body` itself.
        let lower = body.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        var inner = body[...]
        if let open = lower.firstRange(of: Array("<body".utf8)),
            let tagEnd = lower[open.upperBound...].firstIndex(of: UInt8(ascii: ">")),
            let close = lower[tagEnd...].firstRange(of: Array("</body>".utf8))
        {
            inner = body[(tagEnd + 1)..<close.lowerBound]
        }
        return stripTags(String(decoding: inner, as: UTF8.self)).trimmingWhitespace() == expected
    }

    private static func stripTags(_ html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" {
                inTag = true
            } else if character == ">" {
                inTag = false
            } else if !inTag {
                out.append(character)
            }
        }
        return out
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else {
            return ""
        }
        return String(self[first...last])
    }
}
