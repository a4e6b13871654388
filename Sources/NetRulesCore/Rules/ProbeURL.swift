/// A portal probe's `http://` URL, split for a request: the host to connect to, the port and the
/// request target.
///
/// One definition of a usable probe URL for the rule file's `connectivity:` section (refused
/// with its position), `netrules portal --url` and the probe itself (`PortalFetch`).
///
/// Only what a probe needs: plain `http`, a host name or IP literal (IPv6 in brackets), an
/// optional port, a path and a query. A fragment is dropped (it never reaches a server). Bytes that
/// could end the request line or a header early (controls, spaces, DEL) and user information
/// (`user@host`) make the URL unusable, so nothing in it can inject into the request.
package struct ProbeURL: Equatable {
    /// The host name, or the IP literal without brackets.
    package var host: String
    package var port: UInt16
    /// The path and query, as sent in the request line (`/` when the URL has none).
    package var target: String
    /// The `Host` header's value: the host (bracketed when IPv6) and the port unless it is 80.
    package var authority: String

    /// Why a URL cannot be probed.
    package struct Unusable: Error, Equatable {
        package var reason: String
    }

    package init(_ url: String) throws(Unusable) {
        let bytes = Array(url.utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw Unusable(reason: "the URL contains a space or a control character")
        }
        guard bytes.count >= 7, bytes[..<7].map({ $0 | 0x20 }) == Array("http://".utf8) else {
            throw Unusable(reason: "only http:// URLs can be probed")
        }
        var rest = url.utf8.dropFirst(7)
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let authority = String(Substring(rest[..<authorityEnd]))
        let path = String(Substring(rest[authorityEnd...]))
        guard !authority.contains("@") else { throw Unusable(reason: "the URL names a user") }

        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Unusable(reason: "an unclosed '['") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Unusable(reason: "text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = Substring(authority)
        }
        guard !host.isEmpty else { throw Unusable(reason: "the URL has no host") }
        var port: UInt16 = 80
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy(\.isASCIIDigit), let number = UInt16(portText), number > 0
            else { throw Unusable(reason: "the port is not a number from 1 to 65535") }
            port = number
        }
        self.host = String(host)
        self.port = port
        self.target = path.isEmpty ? "/" : (path.hasPrefix("?") ? "/" + path : path)
        let bracketed = host.contains(":") ? "[\(host)]" : String(host)
        self.authority = port == 80 ? bracketed : "\(bracketed):\(port)"
    }

    /// Where a redirect's `Location` points, resolved against this URL as a browser would for the
    /// forms a portal sends: absolute (`scheme:…`, returned as it is), scheme-relative (`//host/…`),
    /// absolute-path (`/login`), a new query (`?next=…`), or relative to this URL's directory
    /// (`login`; `..` is kept, not folded).
    package func resolve(_ location: String) -> String {
        let base = "http://" + authority
        if location.hasPrefix("//") { return "http:" + location }
        if location.hasPrefix("/") { return base + location }
        if let colon = location.firstIndex(of: ":"),
            location[..<colon].allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "+-.".contains($0) }),
            location.first?.isASCIILetter == true
        {
            return location
        }
        let path = target.prefix { $0 != "?" }
        if location.hasPrefix("?") { return base + path + location }
        let directory = path[...(path.lastIndex(of: "/") ?? path.startIndex)]
        return base + directory + location
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
}
