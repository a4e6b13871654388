import NetRulesCore

/// The load-time rule for a webhook's URL: the scheme, host and port are literal, so no value the
/// network chooses can send the request (and its `Authorization` header) somewhere else.
/// Templates may stand in the path, query and fragment, where their values are percent-encoded.
enum WebhookURLCheck {
    struct Problem: Equatable {
        var message: String
        var hint: String
        /// The Unicode-scalar offset in the URL's text the problem is about.
        var offset: Int
    }

    static func problem(in url: Template) -> Problem? {
        let prefix: String = { if case .literal(let s)? = url.segments.first { s } else { "" } }()
        let schemes = ["http://", "https://"]
        guard let scheme = schemes.first(where: { prefix.lowercased().hasPrefix($0) }) else {
            return Problem(
                message: "the URL must start with http:// or https://",
                hint: "write the scheme and host literally; a template may fill in the path, query or fragment",
                offset: 0)
        }
        let afterScheme = prefix.dropFirst(scheme.count)
        let end = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" }
        if end == nil && !url.isConstant {
            return Problem(
                message:
                    "the host and port of a webhook URL must be literal: a value here would let the network choose "
                    + "where the request (and its headers) goes",
                hint:
                    "end the host with '/' before any '{{…}}', e.g. \"https://hr.example.com/check-in?ssid={{ssid}}\"",
                offset: url.placeholderOffsets.first ?? 0)
        }
        let authority = afterScheme[..<(end ?? afterScheme.endIndex)]
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        var host = Substring(hostAndPort)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return badHost(scheme.count) }
            let rest = host[host.index(after: close)...]
            if rest.hasPrefix(":") { port = rest.dropFirst() } else if !rest.isEmpty { return badHost(scheme.count) }
            host = host[...close]
        } else if let colon = host.lastIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        if host.isEmpty || host.contains(where: { $0 == " " || $0 == "\t" || $0 == "\\" }) {
            return badHost(scheme.count)
        }
        if let port, !(port.allSatisfy(\.isASCII) && Int(port).map({ (1...65535).contains($0) }) == true) {
            return Problem(
                message: "the URL's port '\(port)' is not a number from 1 to 65535", hint: "write the port literally",
                offset: scheme.count)
        }
        return nil
    }

    private static func badHost(_ offset: Int) -> Problem {
        Problem(message: "the URL has no valid host", hint: "write it as https://HOST[:PORT]/PATH", offset: offset)
    }
}
