import Testing

@testable import NetRulesCore

/// `portal.url` is a URL or nothing: what a portal's `Location` becomes, or why it is refused.
@Suite(.timeLimit(.minutes(1)))
struct ReportedURLTests {
    @Test(arguments: [
        ("http://192.0.2.1/login?next=%2F", "http://192.0.2.1/login?next=%2F"),
        ("HTTPS://portal.example:8443/a/b#top", "https://portal.example:8443/a/b#top"),
        ("http://[2001:db8::1]:81/x", "http://[2001:db8::1]:81/x"),
        // Characters outside RFC 3986 are percent-encoded as their UTF-8 bytes: the same URL to a server.
        ("http://portal.example/log in", "http://portal.example/log%20in"),
        ("http://portal.example/\"<>\\^`{|}", "http://portal.example/%22%3C%3E%5C%5E%60%7B%7C%7D"),
        ("http://portal.example/café", "http://portal.example/caf%C3%A9"),
        ("http://portal.example/\u{9B}2J\u{202E}", "http://portal.example/%C2%9B2J%E2%80%AE"),
        ("http://portal.example/[x]#a#b", "http://portal.example/%5Bx%5D#a%23b"),
        ("http://portal.example/100%", "http://portal.example/100%25"),
        ("http://portal.example/%zz%4", "http://portal.example/%25zz%254"),
        ("http://portal.example/$(reboot);'&=+,*!", "http://portal.example/$(reboot);'&=+,*!"),
        ("http://portal.example", "http://portal.example"),
        ("http://portal.example?q=1", "http://portal.example?q=1"),
    ])
    func keptURLs(_ location: String, _ kept: String) throws {
        #expect(try ReportedURL.checked(location).get() == kept)
    }

    @Test(arguments: [
        ("file:///etc/shadow", "only http and https URLs are kept, not 'file:'"),
        ("javascript:alert(1)", "only http and https URLs are kept, not 'javascript:'"),
        ("/login", "it is not an absolute URL"),
        ("http:login", "it is not an absolute URL (no '//' host)"),
        ("http://user:pw@evil.example/", "it names a user (user@host), which disguises the host it leads to"),
        ("http://captive.apple.com@evil.example/", "it names a user (user@host), which disguises the host it leads to"),
        ("http://évil.example/", "its host is not an ASCII host name (letters, digits, '-', '.')"),
        ("http:///x", "it has no host"),
        ("http://portal.example:0/", "its port is not a number from 1 to 65535"),
        ("http://portal.example:99999/", "its port is not a number from 1 to 65535"),
        ("http://[::1/", "its host has an unclosed '['"),
        ("http://portal.example/\u{1B}]0;pwned\u{7}", "it contains the control character 0x1b"),
        ("http://portal.example/a\r\nSet-Cookie: x", "it contains the control character 0x0d"),
        ("http://portal.example/\u{0}", "it contains the control character 0x00"),
        (
            "http://portal.example/\u{FFFD}",
            "it is not valid UTF-8 (it holds U+FFFD, the replacement for bytes that were not)"
        ),
    ])
    func refusedURLs(_ location: String, _ reason: String) {
        #expect(ReportedURL.checked(location) == .failure(ReportedURL.Refusal(reason: reason)))
    }

    @Test func aURLOverTwoKiBIsRefusedAndOneThatGrowsPastItToo() throws {
        let long = "http://portal.example/" + String(repeating: "a", count: 60_000)
        #expect(ReportedURL.checked(long) == .failure(.init(reason: "it is 60022 bytes long; at most 2048 are kept")))
        let exact = "http://portal.example/" + String(repeating: "a", count: 2048 - 22)
        #expect(try ReportedURL.checked(exact).get() == exact)
        // 700 spaces are 700 bytes, and 2,100 once encoded.
        let growing = "http://portal.example/" + String(repeating: " ", count: 700)
        #expect(
            ReportedURL.checked(growing)
                == .failure(.init(reason: "it is 2122 bytes long once percent-encoded; at most 2048 are kept")))
    }
}
