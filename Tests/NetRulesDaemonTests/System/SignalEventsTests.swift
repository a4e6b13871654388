@preconcurrency import Glibc
import NetRulesTesting
import Testing

@testable import NetRulesDaemon

/// Real signals sent to this test process. Serialized: dispositions are process-wide.
@Suite(.timeLimit(.minutes(1)), .serialized)
struct SignalEventsTests {
    private func first(of events: SignalEvents, _ what: String) async throws -> SignalEvent? {
        try await withGuard(seconds: 10, what) { () -> SignalEvent? in
            for await event in events { return event }
            return nil
        }
    }

    @Test(arguments: SignalEvent.allCases)
    func realSignalArrivesAsAnEvent(_ signal: SignalEvent) async throws {
        let before = SignalDispositions.handlerAddress(signal.signalNumber)
        let events = try SignalEvents.register(on: .testLoop)
        // Registration is complete here: sending the signal right away must not kill the process.
        #expect(kill(getpid(), signal.signalNumber) == 0)
        let received = try await first(of: events, "\(signal)")
        #expect(received == signal)
        events.finish()
        #expect(SignalDispositions.handlerAddress(signal.signalNumber) == before)
    }

    @Test func aSecondRegistrationAfterTheFirstEndedStillReceives() async throws {
        for round in 1...3 {
            let events = try SignalEvents.register([.hangup], on: .testLoop)
            #expect(kill(getpid(), SIGHUP) == 0)
            #expect(try await first(of: events, "SIGHUP in round \(round)") == .hangup)
            events.finish()
        }
    }

    @Test func severalSignalsReachOneSequence() async throws {
        let events = try SignalEvents.register(on: .testLoop)
        defer { events.finish() }
        #expect(kill(getpid(), SIGHUP) == 0)
        #expect(kill(getpid(), SIGTERM) == 0)
        let received = try await withGuard(seconds: 10, "SIGHUP and SIGTERM") { () -> Set<SignalEvent> in
            var seen: Set<SignalEvent> = []
            for await event in events {
                seen.insert(event)
                if seen.count == 2 { break }
            }
            return seen
        }
        #expect(received == [.hangup, .terminate])
    }

    @Test func twoLiveSequencesBothReceiveAndTheLastRestoresTheDefault() async throws {
        let before = SignalDispositions.handlerAddress(SIGHUP)
        let first = try SignalEvents.register([.hangup], on: .testLoop)
        let second = try SignalEvents.register([.hangup], on: .testLoop)
        #expect(kill(getpid(), SIGHUP) == 0)
        #expect(try await self.first(of: first, "SIGHUP on the first") == .hangup)
        #expect(try await self.first(of: second, "SIGHUP on the second") == .hangup)
        first.finish()
        #expect(SignalDispositions.handlerAddress(SIGHUP) != before, "still caught while the second lives")
        #expect(kill(getpid(), SIGHUP) == 0)
        #expect(try await self.first(of: second, "SIGHUP after the first ended") == .hangup)
        second.finish()
        #expect(SignalDispositions.handlerAddress(SIGHUP) == before)
    }

    @Test func cancellingTheConsumerEndsTheRegistration() async throws {
        let before = SignalDispositions.handlerAddress(SIGINT)
        let events = try SignalEvents.register([.interrupt], on: .testLoop)
        let consumer = Task { for await _ in events {} }
        consumer.cancel()
        await consumer.value
        #expect(SignalDispositions.handlerAddress(SIGINT) == before)
    }
}
