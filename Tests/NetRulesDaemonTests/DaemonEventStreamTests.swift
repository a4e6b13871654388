import Foundation
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The daemon's event stream (`Daemon.makeEventStream`) keeps what the daemon relies on: arrival
/// order, nothing lost between threads, a waiting consumer woken, `finish()` refusing new events
/// but not the queued ones, and a cancelled consumer let go.
@Suite(.timeLimit(.minutes(1)))
struct DaemonEventStreamTests {
    /// The tick events as numbers, so an order can be compared: `.observerRetired` carries one.
    static func event(_ number: Int) -> DaemonEvent { .observerRetired(identity: String(number), name: "") }

    /// The daemon's stream as a queue: `yield` on one side, `next` on the other (one consumer).
    final class Queue: @unchecked Sendable {
        // Invariant for `@unchecked Sendable`: `iterator` is used by one consumer task at a time.
        let stream: AsyncStream<DaemonEvent>
        let continuation: AsyncStream<DaemonEvent>.Continuation
        private var iterator: AsyncStream<DaemonEvent>.Iterator

        init() {
            (stream, continuation) = Daemon.makeEventStream()
            iterator = stream.makeAsyncIterator()
        }

        @discardableResult
        func yield(_ event: DaemonEvent) -> AsyncStream<DaemonEvent>.Continuation.YieldResult {
            continuation.yield(event)
        }

        func finish() { continuation.finish() }

        func next() async -> DaemonEvent? { await iterator.next() }
    }

    static func enqueued(_ result: AsyncStream<DaemonEvent>.Continuation.YieldResult) -> Bool {
        if case .enqueued = result { return true }
        return false
    }

    static func terminated(_ result: AsyncStream<DaemonEvent>.Continuation.YieldResult) -> Bool {
        if case .terminated = result { return true }
        return false
    }

    static func number(_ event: DaemonEvent?) -> Int? {
        guard case .observerRetired(let identity, _)? = event else { return nil }
        return Int(identity)
    }

    @Test func queuedEventsComeOutInOrder() async {
        let queue = Queue()
        for number in 0..<100 { #expect(Self.enqueued(queue.yield(Self.event(number)))) }
        var seen: [Int] = []
        for _ in 0..<100 { seen.append(Self.number(await queue.next()) ?? -1) }
        #expect(seen == Array(0..<100))
    }

    /// A consumer that stays a few events behind for 100,000 events gets every one in order.
    @Test func aConsumerAFewEventsBehindGetsThemAllInOrder() async {
        let queue = Queue()
        for number in 0..<4 { queue.yield(Self.event(number)) }
        var inOrder = true
        for number in 4..<100_004 {
            queue.yield(Self.event(number))
            if Self.number(await queue.next()) != number - 4 { inOrder = false }
        }
        #expect(inOrder)
    }

    @Test func aWaitingConsumerIsWokenByTheNextEvent() async {
        let queue = Queue()
        let consumer = Task { await queue.next() }
        // Give the consumer time to wait; the event must reach it either way.
        try? await Task.sleep(for: .milliseconds(50))
        queue.yield(Self.event(7))
        #expect(Self.number(await consumer.value) == 7)
    }

    @Test func finishRefusesNewEventsButKeepsQueuedOnes() async {
        let queue = Queue()
        queue.yield(Self.event(1))
        queue.yield(Self.event(2))
        queue.finish()
        #expect(Self.terminated(queue.yield(Self.event(3))))
        #expect(Self.number(await queue.next()) == 1)
        #expect(Self.number(await queue.next()) == 2)
        #expect(await queue.next() == nil)
        #expect(await queue.next() == nil)
    }

    @Test func finishWakesAWaitingConsumerWithNil() async {
        let queue = Queue()
        let consumer = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        queue.finish()
        #expect(await consumer.value == nil)
    }

    @Test func aCancelledConsumerGetsNilAndTheQueueIsFinished() async {
        let queue = Queue()
        let consumer = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(await consumer.value == nil)
        #expect(Self.terminated(queue.yield(Self.event(1))))
    }

    /// Four threads append 5,000 events each while the consumer takes them: all 20,000 arrive,
    /// each thread's in the order it sent them.
    @Test func eventsFromManyThreadsAreAllDeliveredInEachThreadsOrder() async {
        let queue = Queue()
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
