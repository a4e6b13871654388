import Foundation
import NetRulesCore
import Testing

@testable import NetRulesLinux

/// The nl80211 messages pyroute2 encoded (`scripts/make-nl80211-fixtures`), read from
/// `Fixtures/nl80211/` beside the tests; the folder's README.md lists what each file holds.
enum NL80211Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/nl80211")

    // The values the generator wrote (see its constants).
    static let family: UInt16 = 0x1C
    static let port: UInt32 = 0x2A2A
    static let sequence: UInt32 = 7
    static let index: Int32 = 3
    static let accessPoint = MACAddress("00:11:22:33:44:55")!
    static let roamedAccessPoint = MACAddress("00:11:22:33:44:66")!
    /// 32 bytes, not UTF-8, with a NUL inside.
    static let oddSSID: [UInt8] = Array("Caf".utf8) + [0xE9, 0x00] + Array(0xF0...0xFF) + Array("-netrules-x".utf8)

    /// The file's bytes.
    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The file's netlink messages.
    static func messages(_ name: String) throws -> [NetlinkMessage] {
        NetlinkMessage.parse(try bytes(name))
    }

    /// The file's one nl80211 message, decoded; nil when the file holds anything else.
    static func decoded(_ name: String) throws -> NL80211Message? {
        let messages = try messages(name)
        guard messages.count == 1, messages[0].type == family else { return nil }
        return NL80211Message.parse(messages[0].payload)
    }

    /// Like `decoded`, failing the test when the file holds no decodable nl80211 message.
    static func message(_ name: String) throws -> NL80211Message {
        try #require(try decoded(name))
    }

    /// What `currentState()` builds from the three dumps: wlan0 associated with the 32-byte SSID,
    /// 00:11:22:33:44:55 at 5180 MHz, signal -58 from the station (the scan's -61 is not taken).
    static func associatedState() throws -> WiFiState {
        var state = WiFiState()
        for name in ["new-interface-associated.bin", "new-station.bin"] { state.apply(try message(name)) }
        for message in try messages("scan-dump.bin") where message.type == family {
            if let decoded = NL80211Message.parse(message.payload) { state.apply(decoded) }
        }
        return state
    }
}
