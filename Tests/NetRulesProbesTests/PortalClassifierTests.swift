import NetRulesCore
import NetRulesHTTP
import Testing

@testable import NetRulesProbes

@Suite(.timeLimit(.minutes(1)))
struct PortalClassifierTests {
    static let apple = ConnectivitySettings.defaultProbes[0]
    static let google = ConnectivitySettings.defaultProbes[1]
    static let applePage = Array("<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>\n".utf8)

    @Test(arguments: [
        (apple, HTTPResponse(status: 200, body: applePage), PortalVerdict.Connectivity?.some(.online)),
        (apple, HTTPResponse(status: 200, body: Array("Success\n".utf8)), .online),
        (apple, HTTPResponse(status: 200, body: Array("<form>login</form>".utf8)), .portal),
        (apple, HTTPResponse(status: 302, location: "http://login/"), .portal),
        (apple, HTTPResponse(status: 511), .portal),
        (apple, HTTPResponse(status: 404), nil),
        (apple, HTTPResponse(status: 500, body: applePage), nil),
        (google, HTTPResponse(status: 204), .online),
        (google, HTTPResponse(status: 204, body: Array("x".utf8)), .portal),
        (google, HTTPResponse(status: 200, body: Array("<html>portal</html>".utf8)), .portal),
        (google, HTTPResponse(status: 307, location: "https://wifi.example/"), .portal),
    ])
    func oneAnswerMeans(
        probe: ConnectivitySettings.Probe, response: HTTPResponse, expected: PortalVerdict.Connectivity?
    ) {
        #expect(PortalClassifier.conclusion(for: response, expecting: probe) == expected)
    }

    @Test func scheduleBacksOffWhileNotOnlineAndRelaxesOnline() {
        var schedule = PortalSchedule(onlineInterval: .seconds(300))
        let delays = [PortalVerdict.Connectivity.offline, .portal, .offline, .offline].map { schedule.delay(after: $0) }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
        #expect(schedule.delay(after: .online) == .seconds(300))
        #expect(schedule.delay(after: .offline) == .seconds(1))
        for _ in 0..<10 { _ = schedule.delay(after: .offline) }
        #expect(schedule.delay(after: .offline) == PortalSchedule.maximumBackoff)
        schedule.reset()
        #expect(schedule.delay(after: .portal) == .seconds(1))
    }

    @Test func defaultRouteComesFromTheLowestMetricDefault() {
        let table = """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
            eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
            wlan0\t00000000\t0100A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
            eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
            """
        #expect(DefaultRoute.interfaceName(routeTable: table) == "eth0")
        #expect(DefaultRoute.interfaceName(routeTable: "Iface\tDestination\n") == nil)
    }

}
