import Testing

@testable import NetRulesCore

/// A plugin's value for a built-in fact passes the checks a timeline's does, and is written as the
/// built-in observers write it.
@Suite(.timeLimit(.minutes(1)))
struct PluginFactCheckTests {
    @Test(arguments: [
        (FactKey.bssid, FactState.value("02-AA-BB-00-00-02"), FactState.value("02:aa:bb:00:00:02")),
        (.gateway, .value("2001:DB8:0::1"), .value("2001:db8::1")),
        (.ip, .value(.list(["192.0.2.7/24", "2001:DB8::7/64"])), .value(.list(["192.0.2.7/24", "2001:db8::7/64"]))),
        (.signal, .value(.number(-61)), .value(.number(-61))),
        (.connectivity, .value("portal"), .value("portal")),
        (.ssid, .value(.bytes([0xFF, 0x41])), .value(.bytes([0xFF, 0x41]))),
        (.ssid, .absent, .absent),
    ])
    func keptAndNormalised(_ key: FactKey, _ reported: FactState, _ kept: FactState) throws {
        #expect(try key.checked(reported).get() == kept)
    }

    /// Which keys a plugin's line is checked as built-in, and the namespace that decides it: the
    /// first run of characters other than `.`, as `split` gave it (asked on every update).
    @Test func builtInKeysAndNamespaces() {
        for (key, namespace) in [
            ("a.b.c", "a"), ("abc", "abc"), (".a.b", "a"), ("..a", "a"), ("a..b", "a"), ("", ""), ("...", "..."),
        ] {
            #expect(FactKey(key).namespace == namespace[...], "\(key)")
        }
        for key in ["ssid", "bssid", "hosts.nas", "interfaces.eth0", "places.office", "vpn"] {
            #expect(FactKey(key).isBuiltIn, "\(key)")
        }
        for key in ["bench.seq", "door", "hostsx.a", "ssid.x", ".hostsx"] {
            #expect(!FactKey(key).isBuiltIn, "\(key)")
        }
    }

    @Test(arguments: [
        (FactKey.bssid, FactState.value("nomac"), "'nomac' is not a MAC address, and 'bssid' is one"),
        (.bssid, .value(.number(2)), "2 is not a value 'bssid' can have"),
        (.gateway, .value("router"), "'router' is not an IP address, as 'gateway' holds"),
        (.connectivity, .value("online!"), "'online!' is not a value 'connectivity' can have"),
        (.signal, .value(.bool(true)), "true is not a value 'signal' can have"),
        (
            .ip, .value(.list(["192.0.2.7/24", "x"])),
            "'x' is not an address with its prefix, like 192.0.2.7/24, as 'ip' holds"
        ),
    ])
    func refused(_ key: FactKey, _ reported: FactState, _ message: String) {
        guard case .failure(let problem) = key.checked(reported) else {
            Issue.record("accepted \(reported) for \(key)")
            return
        }
        #expect(problem.message == message)
    }
}
