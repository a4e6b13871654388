import Foundation
import Testing

@testable import NetRulesDaemon

/// The daemon's event queue keeps what `AsyncStream(bufferingPolicy: .unbounded)` promised it:
/// arrival order, nothing lost between threads, a waiting consumer woken, `finish()` refusing new
/// events but not the queued ones, and a cancelled consumer let go.
@Suite(.timeLimit(.minutes(1)))
struct DaemonEventQueueTests {
    /// The tick events as numbers, so an order can be compared: `.observerRetired` carries one.
    static func event(_ number: Int) -> Daemon.Event { .observerRetired(identity: String(number), name: "") }

    static func number(_ event: Daemon.Event?) -> Int? {
        guard case .observerRetired(let identity, _)? = event else { return nil }
        return Int(identity)
    }

    @Test func queuedEventsComeOutInOrder() async {
        let queue = DaemonEventQueue()
        for number in 0..<100 { #expect(queue.yield(Self.event(number)) == .enqueued) }
        var seen: [Int] = []
        for _ in 0..<100 { seen.append(Self.number(await queue.next()) ?? -1) }
        #expect(seen == Array(0..<100))
    }

    /// A consumer that stays a few events behind for 100,000 events: what it took is let go.
    @Test func eventsAlreadyTakenAreNotKeptWhileTheQueueNeverEmpties() async {
        let queue = DaemonEventQueue()
        for number in 0..<4 { queue.yield(Self.event(number)) }
        var inOrder = true
        for number in 4..<100_004 {
            queue.yield(Self.event(number))
            if Self.number(await queue.next()) != number - 4 { inOrder = false }
        }
        #expect(inOrder)
        #expect(queue.storedCount <= 2_100, "holds \(queue.storedCount) events for 5 queued")
    }

    @Test func aWaitingConsumerIsWokenByTheNextEvent() async {
        let queue = DaemonEventQueue()
        let consumer = Task { await queue.next() }
        // Give the consumer time to wait; the event must reach it either way.
        try? await Task.sleep(for: .milliseconds(50))
        queue.yield(Self.event(7))
        #expect(Self.number(await consumer.value) == 7)
    }

    @Test func finishRefusesNewEventsButKeepsQueuedOnes() async {
        let queue = DaemonEventQueue()
        queue.yield(Self.event(1))
        queue.yield(Self.event(2))
        queue.finish()
        #expect(queue.yield(Self.event(3)) == .terminated)
        #expect(Self.number(await queue.next()) == 1)
        #expect(Self.number(await queue.next()) == 2)
        #expect(await queue.next() == nil)
        #expect(await queue.next() == nil)
    }

    @Test func finishWakesAWaitingConsumerWithNil() async {
        let queue = DaemonEventQueue()
        let consumer = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        queue.finish()
        #expect(await consumer.value == nil)
    }

    @Test func aCancelledConsumerGetsNilAndTheQueueIsFinished() async {
        let queue = DaemonEventQueue()
        let consumer = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(await consumer.value == nil)
        #expect(queue.yield(Self.event(1)) == .terminated)
    }

    /// Four threads append 5,000 events each while the consumer takes them: all 20,000 arrive,
    /// each thread's in the order it sent them.
    @Test func eventsFromManyThreadsAreAllDeliveredInEachThreadsOrder() async {
        let queue = DaemonEventQueue()
        let producers = 4
        let perProducer = 5_000
        for producer in 0..<producers {
            Thread.detachNewThread {
                for index in 0..<perProducer { queue.yield(Self.event(producer * 1_000_000 + index)) }
            }
        }
        var next = [Int](repeating: 0, count: producers)
        var inOrder = true
        for _ in 0..<(producers * perProducer) {
            guard let number = Self.number(await queue.next()) else {
                inOrder = false
                break
            }
            let producer = number / 1_000_000
            if number % 1_000_000 != next[producer] { inOrder = false }
            next[producer] += 1
        }
        #expect(inOrder)
        #expect(next == [Int](repeating: perProducer, count: producers))
    }
}
