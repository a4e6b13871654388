/// A URL that the network reported (a captive portal's `Location`), made fit to become a fact.
///
/// `portal.url` reaches templates, `NETRULES_PORTAL_URL`, files and terminals, and a portal is a
/// hostile server: its `Location` can be any header bytes. So a reported URL is a URL or nothing:
/// - an absolute `http` or `https` URL (the scheme lower-cased), with a host of ASCII letters,
///   digits, `-`, `.` and `_`, or an IP literal in brackets, and an optional port from 1 to 65535;
/// - its path, query and fragment of RFC 3986 characters only: any other character (a space,
///   `"`, `<`, `\`, `{`, non-ASCII text, a second `#`) is percent-encoded as its UTF-8 bytes, and
///   a `%` that starts no `%XX` becomes `%25`, which a server decodes back to the same text;
/// - at most ``limit`` bytes once encoded.
///
/// What cannot be made so without changing where the URL leads is refused with the reason:
/// another scheme (`file:`, `javascript:`), a relative reference, user information (`user@host`
/// disguises the host a person reads), a host that is not ASCII, a bad port, a control character
/// (C0 or DEL: no honest portal sends one, and dropping it would change the URL), U+FFFD (what
/// bytes that are not UTF-8 became when the header was read: the bytes it replaced are lost), or
/// a URL too long.
/// Callers resolve a relative `Location` against the probe's URL first (``ProbeURL/resolve(_:)``).
package enum ReportedURL {
    /// The longest URL reported, in bytes after encoding.
    package static let limit = 2048

    /// Why a reported URL is not passed on.
    package struct Refusal: Error, Equatable, Sendable {
        package var reason: String
    }

    /// The URL as it may be passed on, or why it may not.
    package static func checked(_ url: String) -> Result<String, Refusal> {
        let bytes = Array(url.utf8)
        // Encoding only lengthens, so a longer input is refused before any work on it.
        guard bytes.count <= limit else { return refuse("it is \(bytes.count) bytes long; at most \(limit) are kept") }
        if let control = bytes.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            return refuse("it contains the control character 0x" + FactValue.hexByte(control))
        }
        if url.unicodeScalars.contains("\u{FFFD}") {
            return refuse("it is not valid UTF-8 (it holds U+FFFD, the replacement for bytes that were not)")
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes[0].isLetter, bytes[..<colon].allSatisfy({ $0.isLetter || $0.isDigit || "+-.".utf8.contains($0) })
        else { return refuse("it is not an absolute URL") }
        let scheme = String(decoding: bytes[..<colon].map { $0 | 0x20 }, as: UTF8.self)
        guard scheme == "http" || scheme == "https" else {
            return refuse("only http and https URLs are kept, not '\(scheme):'")
        }
        let afterScheme = bytes[(colon + 1)...]
        guard afterScheme.starts(with: "//".utf8) else { return refuse("it is not an absolute URL (no '//' host)") }
        let rest = afterScheme.dropFirst(2)
        let authorityEnd = rest.firstIndex {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        }
        let authority = rest[..<(authorityEnd ?? rest.endIndex)]
        switch checkAuthority(authority) {
        case .failure(let refusal): return .failure(refusal)
        case .success: break
        }
        var out = scheme + "://" + String(decoding: authority, as: UTF8.self)
        var inFragment = false
        var index = authorityEnd ?? rest.endIndex
        var inQuery = false
        while index < rest.endIndex {
            let byte = rest[index]
            if byte == UInt8(ascii: "%"), index + 2 < rest.endIndex, rest[index + 1].isHexDigit,
                rest[index + 2].isHexDigit
            {
                out += String(decoding: rest[index...(index + 2)], as: UTF8.self)
                index += 3
                continue
            }
            if byte == UInt8(ascii: "#") && !inFragment {
                inFragment = true
                out += "#"
            } else if byte == UInt8(ascii: "?") && !inQuery && !inFragment {
                inQuery = true
                out += "?"
            } else if byte.isUnreserved || subDelimiters.contains(byte) || ":@/?".utf8.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + FactValue.hexByte(byte).uppercased()
            }
            index += 1
        }
        guard out.utf8.count <= limit else {
            return refuse("it is \(out.utf8.count) bytes long once percent-encoded; at most \(limit) are kept")
        }
        return .success(out)
    }

    private static let subDelimiters = Array("!$&'()*+,;=".utf8)

    private static func refuse(_ reason: String) -> Result<String, Refusal> { .failure(Refusal(reason: reason)) }

    /// `host[:port]` of a reported URL: no user information, an ASCII host name or a bracketed IP
    /// literal, a port from 1 to 65535 when one is given.
    private static func checkAuthority(_ authority: ArraySlice<UInt8>) -> Result<Void, Refusal> {
        if authority.contains(UInt8(ascii: "@")) {
            return .failure(Refusal(reason: "it names a user (user@host), which disguises the host it leads to"))
        }
        var host = authority
        var port: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                return .failure(Refusal(reason: "its host has an unclosed '['"))
            }
            host = authority[(authority.startIndex + 1)..<close]
            guard !host.isEmpty,
                host.allSatisfy({ $0.isHexDigit || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return .failure(Refusal(reason: "its host is not an IP address in brackets")) }
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else {
                    return .failure(Refusal(reason: "text follows the bracketed host"))
                }
                port = after.dropFirst()
            }
        } else {
            if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
                host = authority[..<colon]
                port = authority[(colon + 1)...]
            }
            guard !host.isEmpty else { return .failure(Refusal(reason: "it has no host")) }
            guard host.allSatisfy({ $0.isLetter || $0.isDigit || "-._".utf8.contains($0) }) else {
                return .failure(Refusal(reason: "its host is not an ASCII host name (letters, digits, '-', '.')"))
            }
        }
        if let port, !port.isEmpty {
            guard port.count <= 5, port.allSatisfy(\.isDigit),
                let number = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(number)
            else { return .failure(Refusal(reason: "its port is not a number from 1 to 65535")) }
        }
        return .success(())
    }
}

extension UInt8 {
    fileprivate var isLetter: Bool { (self | 0x20) >= 0x61 && (self | 0x20) <= 0x7A }
    fileprivate var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    fileprivate var isHexDigit: Bool { isDigit || ((self | 0x20) >= 0x61 && (self | 0x20) <= 0x66) }
    fileprivate var isUnreserved: Bool {
        isLetter || isDigit || self == 0x2D || self == 0x2E || self == 0x5F || self == 0x7E
    }
}
