import Testing

@testable import NetRulesActions

/// The limits on webhook requests under way at once, per host and in all, walked without a server.
@Suite(.timeLimit(.minutes(1)))
struct DeliverySlotsTests {
    @Test(arguments: [
        ("https://Example.com/a?b#c", "https://example.com:443"),
        ("https://example.com:443/b", "https://example.com:443"),
        ("http://user:pw@hooks.example:8080/x", "http://hooks.example:8080"),
        ("http://127.0.0.1/hook", "http://127.0.0.1:80"),
        ("http://[::1]/hook", "http://[::1]:80"),
        ("http://[::1]:9000", "http://[::1]:9000"),
        ("HTTP://h?q=1", "http://h:80"),
    ])
    func aHostKeyIsTheSchemeHostAndPort(url: String, key: String) {
        #expect(DeliverySlots.hostKey(of: url) == key)
    }

    @Test func aRequestBeyondTheHostsLimitWaitsForASlotOfThatHost() async {
        let slots = DeliverySlots(perHost: 2, total: 10)
        #expect(await slots.acquire(host: "a"))
        #expect(await slots.acquire(host: "a"))
        let third = Task { await slots.acquire(host: "a") }
        // Another host is not held up by the waiting one.
        #expect(await slots.acquire(host: "b"))
        slots.release(host: "a")
        #expect(await third.value)
        #expect(slots.peak == 3)
    }

    @Test func theTotalLimitHoldsAcrossHosts() async {
        let slots = DeliverySlots(perHost: 2, total: 3)
        #expect(await slots.acquire(host: "a"))
        #expect(await slots.acquire(host: "b"))
        #expect(await slots.acquire(host: "c"))
        let fourth = Task { await slots.acquire(host: "d") }
        slots.release(host: "b")
        #expect(await fourth.value)
        #expect(slots.peak == 3)
    }

    @Test func aCancelledWaiterGetsNoSlotAndTakesNoneFromOthers() async {
        let slots = DeliverySlots(perHost: 1, total: 1)
        #expect(await slots.acquire(host: "a"))
        let cancelled = Task { await slots.acquire(host: "a") }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        let next = Task { await slots.acquire(host: "a") }
        slots.release(host: "a")
        #expect(await next.value)
    }
}
