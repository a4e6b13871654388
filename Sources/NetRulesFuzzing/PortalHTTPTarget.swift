import NetRulesCore
import NetRulesProbes

/// `portal-http`: what a captive portal answers to the portal probe's GET, read as the probe reads
/// it, whole and in two pieces split where the first byte says; then the `Location` it may carry
/// resolved against a probe URL. The reader must come to the same outcome however the answer is
/// split, and never keep more body than its limit.
enum PortalHTTPTarget {
    static let probe = try! ProbeURL("http://192.0.2.1:8080/dir/hotspot-detect.html?x=1")

    static func run(_ bytes: [UInt8]) {
        let limit = 512
        var whole = HTTPResponseReader(bodyLimit: limit)
        var outcome = whole.consume(bytes)
        if outcome == .needMore { outcome = whole.end() }

        let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        var split = HTTPResponseReader(bodyLimit: limit)
        var pieces = split.consume(bytes[..<cut])
        if pieces == .needMore { pieces = split.consume(bytes[cut...]) }
        if pieces == .needMore { pieces = split.end() }
        require(outcome == pieces, "the outcome depends on how the answer was split at \(cut)")

        if case .complete(let head, let body, let truncated) = outcome {
            require(body.count <= limit, "kept \(body.count) body bytes over a limit of \(limit)")
            require(!truncated || body.count == limit, "truncated below the limit")
            require((0...999).contains(head.status), "status \(head.status)")
            if let location = head.value(of: "Location") { keep(probe.resolve(location)) }
        }
        // The fuzz target checks that parsing never crashes; a rejected URL is a valid outcome, kept
        // so the optimiser sees it.
        keep(try? ProbeURL(String(decoding: bytes, as: UTF8.self)))
    }
}
