import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesLinux

/// The Wi-Fi observer's loop on a scripted session and virtual time: it samples the access point
/// every interval only while someone reads the signal, reports only moves past 2 dB, and with no
/// reader waits without a timeout.
@Suite(.timeLimit(.minutes(1)))
struct WiFiWatchTests {
    typealias F = NL80211Fixtures

    /// Runs the loop until the script stops it; returns the signals it reported.
    static func run(
        _ session: ScriptedNL80211Session, sampling: SignalSampling, stop: StopFlag
    ) async throws -> [FactState] {
        let wake = try WakeEvent()
        defer { wake.close() }
        var signals: [FactState] = []
        try await WiFiObserver.watch(
            session, on: .testLoop, wake: wake, stop: stop, sampling: sampling, now: { session.now },
            report: { update in if let signal = update.changes[.signal] { signals.append(signal) } })
        return signals
    }

    @Test func withNoReaderItNeverSamplesAndWaitsWithoutATimeout() async throws {
        let stop = StopFlag()
        let session = ScriptedNL80211Session(state: try F.associatedState(), signals: [-70, -80]) { wait, _ in
            // Three association events, then the stop.
            if wait <= 3 { return .event }
            stop.raise()
            return .wake
        }
        let signals = try await Self.run(session, sampling: SignalSampling(), stop: stop)
        #expect(session.timeouts == [-1, -1, -1, -1])
        #expect(session.stationRequests.isEmpty)
        #expect(session.dumps == 4)  // the start, then one per event
        #expect(signals == [.value(.number(-58))])
    }

    @Test func aReaderGetsASampleEveryIntervalAndOnlyMovesPastTwoDB() async throws {
        let stop = StopFlag()
        let sampling = SignalSampling(interval: .seconds(5))
        let session = ScriptedNL80211Session(state: try F.associatedState(), signals: [-59, -60, -62, -61, -65]) {
            wait, _ in
            if wait <= 5 { return .timeOut }
            stop.raise()
            return .wake
        }
        let signals = try await Self.run(session, sampling: sampling, stop: stop)
        #expect(session.timeouts == [5000, 5000, 5000, 5000, 5000, 5000])
        #expect(session.stationRequests.map(\.index) == Array(repeating: F.index, count: 5))
        #expect(session.stationRequests.allSatisfy { $0.mac == F.accessPoint })
        // -58 at start; -59 and -60 are within 2 dB; -62 is past it; -61 is within 2 dB of -62; -65 is past it.
        #expect(signals == [.value(.number(-58)), .value(.number(-62)), .value(.number(-65))])
    }

    @Test func readersComingAndGoingArmAndDisarmTheTimeout() async throws {
        let stop = StopFlag()
        let sampling = SignalSampling()
        let session = ScriptedNL80211Session(state: try F.associatedState(), signals: [-70, -71]) { wait, _ in
            switch wait {
            case 1:
                sampling.set(.seconds(5))  // a rule or a watch client starts reading signal
                return .wake
            case 2, 3:
                return .timeOut
            case 4:
                sampling.set(nil)  // the last reader leaves
                return .wake
            case 5:
                return .event
            default:
                stop.raise()
                return .wake
            }
        }
        let signals = try await Self.run(session, sampling: sampling, stop: stop)
        // The wake at wait 4 ends a 5 s wait early; from then on, no timeout.
        #expect(session.timeouts == [-1, 5000, 5000, 5000, -1, -1])
        #expect(session.stationRequests.count == 2)
        // The event re-reads the dumps, whose station says -58 again: events are taken as they are.
        #expect(signals == [.value(.number(-58)), .value(.number(-70)), .value(.number(-58))])
    }

    @Test func nothingAssociatedNothingSampled() async throws {
        let stop = StopFlag()
        var idle = WiFiState()
        idle.apply(try F.message("new-interface-idle.bin"))
        let session = ScriptedNL80211Session(state: idle, signals: [-50]) { wait, _ in
            if wait == 1 { return .event }
            stop.raise()
            return .wake
        }
        let signals = try await Self.run(session, sampling: SignalSampling(interval: .seconds(1)), stop: stop)
        #expect(session.timeouts == [-1, -1])
        #expect(session.stationRequests.isEmpty)
        #expect(signals == [.absent])
    }
}
