import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesLinux

/// nl80211 decoding on messages pyroute2 encoded (`Fixtures/nl80211`, from
/// `scripts/make-nl80211-fixtures`): these machines have no cfg80211, so an independent encoder
/// stands in for the kernel.
@Suite(.timeLimit(.minutes(1)))
struct NL80211Tests {
    typealias F = NL80211Fixtures

    @Test func theControllersReplyGivesTheFamilyIdAndItsGroups() throws {
        let messages = try F.messages("ctrl-new-family.bin")
        #expect(messages.count == 1)
        #expect(messages.first?.type == 0x10)  // GENL_ID_CTRL
        #expect(messages.first?.sequence == 1)
        let family = try #require(messages.first.flatMap { GenericNetlinkFamily.parse($0.payload) })
        #expect(family.id == F.family)
        #expect(
            family.groups == [
                "config": 4, "scan": 5, "regulatory": 6, "mlme": 7, "vendor": 8, "nan": 9, "testmode": 10,
            ])
    }

    @Test func anAssociatedInterfaceKeepsAllThirtyTwoSSIDBytes() throws {
        let messages = try F.messages("new-interface-associated.bin")
        #expect(messages.map(\.type) == [F.family])
        #expect(messages.first?.sequence == F.sequence)
        #expect(messages.first?.portID == F.port)
        #expect(F.oddSSID.count == 32 && String(validating: F.oddSSID, as: UTF8.self) == nil)
        #expect(
            try F.decoded("new-interface-associated.bin")
                == .interface(index: F.index, name: "wlan0", ssid: F.oddSSID, frequency: 5180))
    }

    @Test func anIdleInterfaceHasNoSSIDAndNoFrequency() throws {
        #expect(
            try F.decoded("new-interface-idle.bin")
                == .interface(index: F.index, name: "wlan0", ssid: nil, frequency: nil))
    }

    @Test func aHiddenNetworksZeroLengthSSIDIsEmptyNotMissing() throws {
        #expect(
            try F.decoded("new-interface-hidden-ssid.bin")
                == .interface(index: F.index, name: "wlan0", ssid: [], frequency: 2412))
    }

    @Test func connectCarriesTheBSSIDAndTheStatus() throws {
        #expect(try F.decoded("connect.bin") == .connected(index: F.index, bssid: F.accessPoint, status: 0))
        #expect(try F.decoded("connect-refused.bin") == .connected(index: F.index, bssid: F.accessPoint, status: 17))
        #expect(try F.messages("connect.bin").first?.sequence == 0)
    }

    @Test func roamAndDisconnect() throws {
        #expect(try F.decoded("roam.bin") == .roamed(index: F.index, bssid: F.roamedAccessPoint))
        #expect(try F.decoded("disconnect.bin") == .disconnected(index: F.index))
    }

    @Test func aScanDumpMarksTheAssociatedBSSAndFindsAnSSIDThatIsNotTheFirstElement() throws {
        let messages = try F.messages("scan-dump.bin")
        #expect(messages.map(\.type) == [F.family, F.family, F.family, 3])  // three BSSes, NLMSG_DONE
        #expect(messages.allSatisfy { $0.sequence == F.sequence && $0.flags & 2 != 0 })  // NLM_F_MULTI
        let decoded = messages.dropLast().map { NL80211Message.parse($0.payload) }
        #expect(
            decoded == [
                .bss(
                    index: F.index, bssid: MACAddress("66:77:88:99:aa:bb")!, frequency: 2437,
                    ssid: Array("Neighbour".utf8), signalDBm: -78, isAssociated: false),
                .bss(
                    index: F.index, bssid: MACAddress("66:77:88:99:aa:cc")!, frequency: 2412, ssid: [],
                    signalDBm: -83, isAssociated: false),
                .bss(
                    index: F.index, bssid: F.accessPoint, frequency: 5180, ssid: F.oddSSID, signalDBm: -61,
                    isAssociated: true),
            ])
    }

    @Test func theStationReplyGivesTheSignalInDBm() throws {
        #expect(try F.decoded("new-station.bin") == .station(index: F.index, mac: F.accessPoint, signalDBm: -58))
    }

    /// The requests we send, byte for byte as pyroute2 lays them out.
    @Test func ourRequestsMatchPyroute2sBytes() throws {
        let (family, index, sequence) = (F.family, F.index, F.sequence)
        #expect(
            GenericNetlinkFamily.lookUp("nl80211", sequence: 1).encoded == (try F.bytes("ctrl-get-family-request.bin")))
        #expect(
            NL80211Request.interfaces(family: family, sequence: sequence).encoded
                == (try F.bytes("get-interface-request.bin")))
        #expect(
            NL80211Request.stations(family: family, index: index, sequence: sequence).encoded
                == (try F.bytes("get-station-dump-request.bin")))
        #expect(
            NL80211Request.station(family: family, index: index, mac: F.accessPoint, sequence: sequence).encoded
                == (try F.bytes("get-station-request.bin")))
        #expect(
            NL80211Request.scan(family: family, index: index, sequence: sequence).encoded
                == (try F.bytes("get-scan-request.bin")))
    }

    /// What `currentState()` builds from its three dumps, then what the events do to it.
    @Test func theDumpsMakeTheFactsAndTheEventsAskForANewLook() throws {
        var state = try F.associatedState()
        let facts = state.facts
        #expect(facts[.ssid] == .value(.bytes(F.oddSSID)))
        #expect(facts[.ssid]?.value?.stringValue?.hasPrefix("Caf\\xe9\\x00\\xf0") == true)
        #expect(facts[.bssid] == .text("00:11:22:33:44:55"))
        #expect(facts[.signal] == .value(.number(-58)))  // the station's signal, not the scan's -61
        #expect(facts[.frequency] == .value(.number(5180)))
        #expect(facts[.interface] == .text("wlan0"))

        #expect(state.apply(try F.message("connect-refused.bin")) == false)
        #expect(state.facts == facts)
        #expect(state.apply(try F.message("roam.bin")))
        #expect(state.facts[.bssid] == .text("00:11:22:33:44:66"))
        #expect(state.apply(try F.message("connect.bin")))

        state.apply(try F.message("disconnect.bin"))
        #expect(state.facts[.ssid] == .absent)
        #expect(state.facts[.interface] == .absent)
        state.apply(try F.message("new-interface-idle.bin"))
        #expect(state.facts[.ssid] == .absent)
    }

    @Test func onAHiddenNetworkTheSSIDIsEmptyTextUntilTheBSSNamesIt() throws {
        var state = WiFiState()
        state.apply(try F.message("new-interface-hidden-ssid.bin"))
        #expect(state.facts[.ssid] == .text(""))
        #expect(state.facts[.frequency] == .value(.number(2412)))
        #expect(state.facts[.interface] == .text("wlan0"))
        // The BSS's probe-response elements may name it; its beacon-only entry may not.
        let hidden = try #require(MACAddress("66:77:88:99:aa:cc"))
        state.apply(.bss(index: F.index, bssid: hidden, frequency: 2412, ssid: [], signalDBm: -83, isAssociated: true))
        #expect(state.facts[.ssid] == .text(""))
        state.apply(
            .bss(
                index: F.index, bssid: hidden, frequency: 2412, ssid: Array("Home".utf8), signalDBm: -83,
                isAssociated: true))
        #expect(state.facts[.ssid] == .text("Home"))
    }

    // MARK: - What pyroute2 does not produce

    @Test func malformedInformationElementsYieldNoSSID() {
        // An element claiming more bytes than there are, before the SSID.
        #expect(NL80211Message.ssid(inInformationElements: [1, 9, 0x82, 0x84, 0, 2, 0x41, 0x42]) == nil)
        #expect(NL80211Message.ssid(inInformationElements: [1, 2, 0x82, 0x84, 0, 2, 0x41, 0x42]) == [0x41, 0x42])
        #expect(NL80211Message.ssid(inInformationElements: [1, 2, 0x82, 0x84]) == nil)
    }

    @Test func aNestedFlagOnTheBSSAttributeIsIgnored() throws {
        // Newer kernels may set NLA_F_NESTED (0x8000) on nests that older ones sent without it.
        let messages = try F.messages("scan-dump.bin")
        var payload = try #require(messages.last(where: { $0.type == F.family })?.payload)
        var position = 4
        while position + 4 <= payload.count {
            let length = Int(payload[position]) | Int(payload[position + 1]) << 8
            if payload[position + 2] == 47 && payload[position + 3] == 0 {  // NL80211_ATTR_BSS
                payload[position + 3] |= 0x80
                break
            }
            position += (length + 3) & ~3
        }
        guard case .bss(_, let bssid, _, let ssid, _, true) = NL80211Message.parse(payload) else {
            Issue.record("the BSS was not decoded")
            return
        }
        #expect(bssid == F.accessPoint)
        #expect(ssid == F.oddSSID)
    }

    /// Only meaningful where the kernel has no nl80211 (as on these machines); where it has, the
    /// observer reports real facts and this test is reported as skipped.
    @Test(
        .enabled(if: NL80211Tests.kernelLacksNL80211, "this kernel has nl80211; the no-nl80211 path cannot be checked"))
    func withoutNL80211TheObserverSaysSoOnceAndReportsNothing() async throws {
        let log = CapturingLogSink()
        let (stream, continuation) = AsyncStream.makeStream(of: FactUpdate.self)
        let observer = WiFiObserver(loop: .testLoop, logger: log.logger())
        let running = Task { try await observer.run(reporting: FactReporter(continuation)) }
        // The observer says so once and then reports nothing: facts it never reported stay unknown
        // (reporting them as unknown would erase what an observer plugin says about them).
        let deadline = ContinuousClock.now + .seconds(10)
        while log.messages.isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        running.cancel()
        try await running.value
        continuation.finish()
        var updates: [FactUpdate] = []
        for await update in stream { updates.append(update) }
        #expect(log.messages.count == 1)
        #expect(log.messages.first?.contains("no nl80211") == true)
        #expect(updates.isEmpty)
    }

    static var kernelLacksNL80211: Bool {
        do { return try NL80211Client.open() == nil } catch { return false }
    }
}
