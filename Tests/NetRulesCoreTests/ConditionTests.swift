import NetRulesCore
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ConditionTests {
    @Test func ssidComparesExactBytesAndHandlesUnknownAndAbsent() {
        let c = SSIDCondition(.oneOf([Array("HomeNet".utf8), Array("HomeNet-5G".utf8)]))
        #expect(c.evaluate(.with([.ssid: "HomeNet"])) == .true)
        #expect(c.evaluate(.with([.ssid: "homenet"])) == .false)
        #expect(c.evaluate(.with([.ssid: nil])) == .false)
        #expect(c.evaluate(FactStore()) == .unknown)
        let raw = SSIDCondition(.oneOf([[0x4f, 0xff, 0x00]]))
        #expect(raw.evaluate(.with([.ssid: .text([0x4f, 0xff, 0x00])])) == .true)
    }

    @Test func ssidPatternSearches() throws {
        let c = SSIDCondition(.matches(try TextPattern("^Guest-[0-9]+$")))
        #expect(c.evaluate(.with([.ssid: "Guest-42"])) == .true)
        #expect(c.evaluate(.with([.ssid: "Guest-x"])) == .false)
    }

    @Test func bssidNormalisesTheFactToo() {
        let c = BSSIDCondition([MACAddress("a1:b2:c3:d4:05:e6")!])
        #expect(c.evaluate(.with([.bssid: "A1-B2-C3-D4-5-E6"])) == .true)
        #expect(c.evaluate(.with([.bssid: "a1:b2:c3:d4:05:e7"])) == .false)
        #expect(c.evaluate(.with([.bssid: "garbage"])) == .false)
        #expect(c.evaluate(FactStore()) == .unknown)
    }

    @Test func factInSet() {
        let portal = FactInSetCondition(key: .connectivity, accepted: ["portal"], spelling: "portal: detected")
        #expect(portal.evaluate(.with([.connectivity: "portal"])) == .true)
        #expect(portal.evaluate(.with([.connectivity: "online"])) == .false)
        #expect(portal.evaluate(FactStore()) == .unknown)
    }

    @Test func hostReachability() {
        let down = HostCondition(host: "intranet", wantsReachable: false)
        #expect(down.readKeys == [.host("intranet")])
        #expect(down.evaluate(.with([.host("intranet"): "unreachable"])) == .true)
        #expect(down.evaluate(.with([.host("intranet"): "reachable"])) == .false)
        #expect(down.evaluate(FactStore()) == .unknown)
    }

    @Test func interfaceMissingCountsAsDown() {
        let up = InterfaceCondition(name: "wg0", wantsUp: true)
        let down = InterfaceCondition(name: "wg0", wantsUp: false)
        #expect(up.evaluate(.with([.interfaceState("wg0"): "up"])) == .true)
        #expect(up.evaluate(.with([.interfaceState("wg0"): nil])) == .false)
        #expect(down.evaluate(.with([.interfaceState("wg0"): nil])) == .true)
        #expect(down.evaluate(FactStore()) == .unknown)
    }

    @Test func gatewayByFamily() {
        let c = GatewayCondition([IPAddress("192.168.1.1")!, IPAddress("fe80::1")!])
        #expect(Set(c.readKeys) == [.gateway, .gateway6])
        #expect(c.evaluate(.with([.gateway: "192.168.1.1", .gateway6: nil])) == .true)
        #expect(c.evaluate(.with([.gateway: "10.0.0.1", .gateway6: "fe80::1"])) == .true)
        #expect(c.evaluate(.with([.gateway: "10.0.0.1", .gateway6: nil])) == .false)
        #expect(c.evaluate(.with([.gateway: "10.0.0.1"])) == .unknown)
    }

    @Test func addressInsideABlock() {
        let c = AddressCondition([CIDR("10.0.0.0/8")!])
        #expect(c.evaluate(.with([.ip: .list(["192.168.1.7/24", "10.1.2.3/16"])])) == .true)
        #expect(c.evaluate(.with([.ip: .list(["192.168.1.7/24"])])) == .false)
        #expect(c.evaluate(.with([.ip: .list([])])) == .false)
    }

    @Test func factTests() throws {
        let above = FactTestCondition(key: .signal, tests: [.above(-70)])
        #expect(above.evaluate(.with([.signal: .number(-61)])) == .true)
        #expect(above.evaluate(.with([.signal: .number(-80)])) == .false)
        let vpn = FactTestCondition(key: "vpn.connected", tests: [.equals(.bool(true))])
        #expect(vpn.evaluate(.with(["vpn.connected": .bool(true)])) == .true)
        #expect(vpn.evaluate(.with(["vpn.connected": "true"])) == .true)
        #expect(vpn.evaluate(.with(["vpn.connected": .bool(false)])) == .false)
        let oneOf = FactTestCondition(key: "x", tests: [.oneOf(["a", .number(2)])])
        #expect(oneOf.evaluate(.with(["x": .number(2)])) == .true)
        #expect(oneOf.evaluate(.with(["x": "2.0"])) == .true)
        let pattern = FactTestCondition(key: "x", tests: [.matches(try TextPattern("^wg"))])
        #expect(pattern.evaluate(.with(["x": "wg0"])) == .true)
    }

    @Test func logicFollowsKleene() {
        let office = SSIDCondition(.oneOf([Array("Office".utf8)]))
        let clear = FactInSetCondition(key: .connectivity, accepted: ["online"], spelling: "portal: clear")
        let all = AllCondition([office, clear])
        #expect(all.evaluate(.with([.ssid: "Home"])) == .false)  // false ∧ unknown
        #expect(all.evaluate(.with([.ssid: "Office"])) == .unknown)  // true ∧ unknown
        #expect(all.evaluate(.with([.ssid: "Office", .connectivity: "online"])) == .true)
        let any = AnyCondition([office, clear])
        #expect(any.evaluate(.with([.ssid: "Office"])) == .true)  // true ∨ unknown
        #expect(any.evaluate(.with([.ssid: "Home"])) == .unknown)  // false ∨ unknown
        #expect(NotCondition(office).evaluate(FactStore()) == .unknown)
        #expect(Set(all.readKeys) == [.ssid, .connectivity])
    }
}
