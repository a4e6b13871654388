import NetRulesCore
import Synchronization
import Testing

@testable import NetRulesLinux

/// nl80211 decoding on byte fixtures laid out from linux/nl80211.h (these machines have no Wi-Fi).
struct NL80211Tests {
    typealias F = RouteFixtures
    // Commands and attributes (values from linux/nl80211.h, checked against the installed header).
    static let newInterface: UInt8 = 7, newStation: UInt8 = 19, newScanResults: UInt8 = 34
    static let connect: UInt8 = 46, roam: UInt8 = 47, disconnect: UInt8 = 48
    static let ifindex: UInt16 = 3, ifname: UInt16 = 4, mac: UInt16 = 6, staInfo: UInt16 = 21, wiphyFreq: UInt16 = 38
    static let bss: UInt16 = 47, ssid: UInt16 = 52, statusCode: UInt16 = 72, reasonCode: UInt16 = 54
    static let bssBSSID: UInt16 = 1, bssFrequency: UInt16 = 2, bssIEs: UInt16 = 6, bssSignal: UInt16 = 7,
        bssStatus: UInt16 = 9
    static let staSignal: UInt16 = 7
    static let ap: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55]
    /// An SSID with a NUL and a non-UTF-8 byte, which must survive byte for byte.
    static let oddSSID: [UInt8] = Array("Caf".utf8) + [0xE9, 0x00, 0x21]

    /// `genlmsghdr` (cmd, version, reserved) + attributes.
    private func genl(_ command: UInt8, _ attributes: [UInt8]) -> NL80211Message? {
        NL80211Message.parse([command, 1, 0, 0] + attributes)
    }

    @Test func decodesConnectRoamAndDisconnect() {
        let index = F.attribute(Self.ifindex, F.le(UInt32(4)))
        #expect(
            genl(Self.connect, index + F.attribute(Self.mac, Self.ap) + F.attribute(Self.statusCode, F.le(UInt16(0))))
                == .connected(index: 4, bssid: MACAddress(octets: Self.ap), status: 0))
        let other: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x66]
        #expect(
            genl(Self.roam, index + F.attribute(Self.mac, other)) == .roamed(index: 4, bssid: MACAddress(octets: other))
        )
        #expect(genl(Self.disconnect, index + F.attribute(Self.reasonCode, F.le(UInt16(3)))) == .disconnected(index: 4))
    }

    @Test func decodesAnAssociatedBSSWithItsSSIDElement() {
        // Information elements: a supported-rates element (id 1) first, then the SSID (id 0).
        let elements: [UInt8] = [1, 2, 0x82, 0x84] + [0, UInt8(Self.oddSSID.count)] + Self.oddSSID
        let nested =
            F.attribute(Self.bssBSSID, Self.ap) + F.attribute(Self.bssFrequency, F.le(UInt32(5180)))
            + F.attribute(Self.bssIEs, elements) + F.attribute(Self.bssSignal, F.le(Int32(-6100)))
            + F.attribute(Self.bssStatus, F.le(UInt32(1)))
        let message = genl(
            Self.newScanResults, F.attribute(Self.ifindex, F.le(UInt32(4))) + F.attribute(Self.bss, nested))
        #expect(
            message
                == .bss(
                    index: 4, bssid: MACAddress(octets: Self.ap)!, frequency: 5180, ssid: Self.oddSSID,
                    signalDBm: -61, isAssociated: true))
    }

    @Test func decodesStationSignalAndInterface() {
        let info = F.attribute(Self.staSignal, [UInt8(bitPattern: -58)])
        #expect(
            genl(
                Self.newStation,
                F.attribute(Self.ifindex, F.le(UInt32(4))) + F.attribute(Self.mac, Self.ap)
                    + F.attribute(Self.staInfo, info))
                == .station(index: 4, mac: MACAddress(octets: Self.ap), signalDBm: -58))
        let interface =
            F.attribute(Self.ifindex, F.le(UInt32(4))) + F.attribute(Self.ifname, Array("wlan0".utf8) + [0])
            + F.attribute(Self.ssid, Self.oddSSID) + F.attribute(Self.wiphyFreq, F.le(UInt32(2412)))
        #expect(
            genl(Self.newInterface, interface)
                == .interface(index: 4, name: "wlan0", ssid: Self.oddSSID, frequency: 2412))
    }

    @Test func stateKeepsTheSSIDBytesAndEscapesThemForPeople() {
        var state = WiFiState()
        state.apply(.interface(index: 4, name: "wlan0", ssid: Self.oddSSID, frequency: 2412))
        state.apply(.station(index: 4, mac: nil, signalDBm: -58))
        let needsRefresh = state.apply(.connected(index: 4, bssid: MACAddress(octets: Self.ap), status: 0))
        #expect(needsRefresh)
        let facts = state.facts
        #expect(facts[.ssid] == .value(.bytes(Self.oddSSID)))
        #expect(facts[.ssid]?.value?.stringValue == "Caf\\xe9\\x00!")
        #expect(facts[.bssid] == .text("00:11:22:33:44:55"))
        #expect(facts[.signal] == .value(.number(-58)))
        #expect(facts[.frequency] == .value(.number(2412)))
        #expect(facts[.interface] == .text("wlan0"))

        state.apply(.disconnected(index: 4))
        #expect(state.facts[.ssid] == .absent)
        #expect(state.facts[.interface] == .absent)
    }

    @Test func parsesTheControllersFamilyReply() {
        let group = F.attribute(2, F.le(UInt32(5))) + F.attribute(1, Array("mlme".utf8) + [0])
        let payload: [UInt8] =
            [1, 2, 0, 0] + F.attribute(1, F.le(UInt16(0x1c))) + F.attribute(2, Array("nl80211".utf8) + [0])
            + F.attribute(7, F.attribute(1, group))
        #expect(GenericNetlinkFamily.parse(payload) == GenericNetlinkFamily(id: 0x1c, groups: ["mlme": 5]))
    }

    @Test func withoutNL80211TheObserverSaysSoOnceAndReportsNothing() async throws {
        guard try NL80211Client.open() == nil else {
            Issue.record("this kernel has nl80211; the no-nl80211 path cannot be checked here")
            return
        }
        let lines = Mutex<[String]>([])
        let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
        let observer = WiFiObserver(logger: { line in lines.withLock { $0.append(line) } })
        let running = Task { try await observer.run(reporting: continuation) }
        // The observer says so once and then reports nothing: facts it never reported stay unknown
        // (reporting them as unknown would erase what an observer plugin says about them).
        let deadline = ContinuousClock.now + .seconds(10)
        while lines.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        running.cancel()
        try await running.value
        continuation.finish()
        var updates: [FactUpdate] = []
        for await update in stream { updates.append(update) }
        #expect(lines.withLock { $0.count } == 1)
        #expect(lines.withLock { $0.first?.contains("no nl80211") } == true)
        #expect(updates.isEmpty)
    }
}
