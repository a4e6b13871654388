@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Testing

@testable import NetRulesLinux

/// Signal sampling without a kernel: the schedule (no reader, no timer), the 2 dB hysteresis, and
/// the handle that wakes the observer when readers come and go.
@Suite(.timeLimit(.minutes(1)))
struct SignalSamplingTests {
    typealias F = NL80211Fixtures
    let start = ContinuousClock.now

    @Test func withNoReaderOrNoAssociationThereIsNoTimeout() {
        var schedule = SignalSchedule()
        #expect(schedule.timeout(interval: nil, isAssociated: true, now: start) == -1)
        #expect(schedule.next == nil)
        #expect(schedule.timeout(interval: .seconds(5), isAssociated: false, now: start) == -1)
        #expect(schedule.next == nil)
        #expect(schedule.takeDue(now: start + .seconds(3600)) == false)
    }

    @Test func samplesComeOneIntervalApartAndStopWithTheLastReader() {
        var schedule = SignalSchedule()
        #expect(schedule.timeout(interval: .seconds(5), isAssociated: true, now: start) == 5000)
        // An event wakes the wait early: the deadline stays where it was.
        #expect(schedule.timeout(interval: .seconds(5), isAssociated: true, now: start + .seconds(2)) == 3000)
        #expect(schedule.takeDue(now: start + .seconds(2)) == false)
        #expect(schedule.takeDue(now: start + .milliseconds(5001)) == true)
        #expect(schedule.next == nil)
        #expect(
            schedule.timeout(interval: .seconds(5), isAssociated: true, now: start + .milliseconds(5001)) == 5000)
        // The last reader leaves: nothing armed, poll waits for events alone.
        #expect(schedule.timeout(interval: nil, isAssociated: true, now: start + .seconds(6)) == -1)
        #expect(schedule.next == nil)
    }

    @Test func aShorterIntervalTakesEffectAtOnceAndTheTimeoutRoundsUp() {
        var schedule = SignalSchedule()
        #expect(schedule.timeout(interval: .seconds(60), isAssociated: true, now: start) == 60_000)
        #expect(schedule.timeout(interval: .seconds(1), isAssociated: true, now: start + .seconds(10)) == 1000)
        // 0.5 ms before the deadline waits 1 ms, never 0 (which would spin until it is due).
        #expect(
            schedule.timeout(interval: .seconds(1), isAssociated: true, now: start + .microseconds(10_999_500)) == 1)
        // Past the deadline (the thread was late): no wait at all.
        #expect(schedule.timeout(interval: .seconds(1), isAssociated: true, now: start + .seconds(12)) == 0)
    }

    @Test(
        arguments: [
            (nil, -60, true), (-60, -62, false), (-60, -58, false), (-60, -63, true), (-60, -57, true),
            (-60, -60, false),
        ] as [(Int?, Int, Bool)])
    func onlyAMovePastTwoDBIsAChange(reported: Int?, sample: Int, isChange: Bool) {
        #expect(WiFiState.isSignalChange(from: reported, to: sample) == isChange)
    }

    /// The state after the dumps (signal -58 from the station), then samples.
    @Test func samplesWithinTheHysteresisChangeNoFact() throws {
        var state = try F.associatedState()
        #expect(state.sampleTarget?.index == F.index && state.sampleTarget?.bssid == F.accessPoint)
        let before = state.facts
        func sample(_ dBm: Int?) -> Bool {
            state.applySample(.station(index: F.index, mac: F.accessPoint, signalDBm: dBm))
        }
        #expect(!sample(-59))
        #expect(!sample(-56))
        #expect(!sample(nil))
        #expect(state.facts == before)
        #expect(sample(-61))
        #expect(state.facts[.signal] == .value(.number(-61)))
        #expect(!sample(-59))  // 2 dB from what was reported (-61), not from the last sample
        #expect(sample(-64))
        #expect(state.facts[.signal] == .value(.number(-64)))
        #expect(state.facts[.ssid] == before[.ssid] && state.facts[.bssid] == before[.bssid])
    }

    @Test func aSampleForAnInterfaceNotAssociatedIsIgnored() throws {
        var state = WiFiState()
        state.apply(try F.message("new-interface-idle.bin"))
        #expect(state.sampleTarget == nil)
        #expect(!state.applySample(try F.message("new-station.bin")))
        #expect(state.facts[.signal] == .absent)
    }

    @Test func aChangeOfIntervalWakesTheListeningObserverAndNothingElseDoes() throws {
        let sampling = SignalSampling()
        let wake = try WakeEvent()
        defer { wake.close() }
        sampling.listen(wake)
        #expect(!Self.isSignalled(wake))
        sampling.set(nil)  // unchanged
        #expect(!Self.isSignalled(wake))
        sampling.set(.seconds(5))
        #expect(sampling.interval == .seconds(5))
        #expect(Self.isSignalled(wake))
        wake.reset()
        #expect(!Self.isSignalled(wake))
        sampling.set(.seconds(5))  // unchanged
        #expect(!Self.isSignalled(wake))
        sampling.stopListening(wake)
        sampling.set(nil)
        #expect(sampling.interval == nil)
        #expect(!Self.isSignalled(wake))
    }

    static func isSignalled(_ wake: WakeEvent) -> Bool {
        var descriptor = pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }
}
