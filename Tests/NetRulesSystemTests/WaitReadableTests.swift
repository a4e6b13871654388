@preconcurrency import Glibc
import NetRulesSystem
import Testing

@Suite(.timeLimit(.minutes(1)))
struct WaitReadableTests {
    /// A pipe's two ends, closed when the test ends.
    private struct Pipe: ~Copyable {
        let read: CInt
        let write: CInt
        init() throws {
            let ends = try sys_pipe2(O_CLOEXEC).get(call: "pipe2")
            (read, write) = (ends.read, ends.write)
        }
        func send() { _ = [UInt8(1)].withUnsafeBytes { sys_write(write, $0) } }
        deinit {
            _ = sys_close(read)
            _ = sys_close(write)
        }
    }

    @Test func aReadableDescriptorIsReady() throws {
        let pipe = try Pipe()
        pipe.send()
        #expect(try waitReadable(pipe.read, wake: nil, deadline: nil) == .ready)
    }

    @Test func aSignalledWakeEndsTheWaitAndWinsOverAReadyDescriptor() throws {
        let pipe = try Pipe()
        let wake = try WakeEvent()
        defer { wake.close() }
        wake.signal()
        #expect(try waitReadable(pipe.read, wake: wake, deadline: nil) == .woken)
        pipe.send()
        #expect(try waitReadable(pipe.read, wake: wake, deadline: nil) == .woken)
        wake.reset()
        #expect(try waitReadable(pipe.read, wake: wake, deadline: nil) == .ready)
    }

    @Test func severalDescriptorsSayWhichIsReadyAlsoWhenTheWakeWins() throws {
        let quiet = try Pipe()
        let busy = try Pipe()
        let wake = try WakeEvent()
        defer { wake.close() }
        var descriptors = [quiet.read, busy.read].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        busy.send()
        #expect(try waitReady(&descriptors, wake: wake, deadline: nil) == .ready)
        #expect(descriptors.count == 2, "the wake event's entry is not left behind")
        #expect(descriptors[0].revents == 0 && descriptors[1].revents & Int16(POLLIN) != 0)
        wake.signal()
        #expect(try waitReady(&descriptors, wake: wake, deadline: nil) == .woken)
        #expect(descriptors[1].revents & Int16(POLLIN) != 0, "the ready pipe is still reported")
        wake.reset()
        var none = [pollfd(fd: quiet.read, events: Int16(POLLIN), revents: 0)]
        #expect(try waitReady(&none, wake: wake, deadline: ContinuousClock.now + .milliseconds(20)) == .timedOut)
    }

    @Test func theDeadlineEndsAQuietWait() throws {
        let pipe = try Pipe()
        let started = ContinuousClock.now
        #expect(try waitReadable(pipe.read, wake: nil, deadline: started + .milliseconds(50)) == .timedOut)
        #expect(ContinuousClock.now - started >= .milliseconds(50))
    }

    @Test func aPassedDeadlineStillLooksOnce() throws {
        let pipe = try Pipe()
        #expect(try waitReadable(pipe.read, wake: nil, deadline: .now - .seconds(1)) == .timedOut)
        pipe.send()
        #expect(try waitReadable(pipe.read, wake: nil, deadline: .now - .seconds(1)) == .ready)
    }

    @Test func otherEventsCanBeAwaited() throws {
        let pipe = try Pipe()
        #expect(try waitReadable(pipe.write, events: Int16(POLLOUT), wake: nil, deadline: .now) == .ready)
    }

    @Test func aWakeEventWaitReturnsOnceSignalled() async throws {
        let wake = try WakeEvent()
        defer { wake.close() }
        let waiting = Task { await DedicatedThread.run { wake.wait() } }
        wake.signal()
        await waiting.value
    }

    @Test func pollTimeoutsRoundUpAndNeverGoNegative() {
        #expect(pollTimeout(until: .now - .seconds(1)) == 0)
        // Rounded up: 1.5 ms left is 2 ms, unless the test itself took more than half a millisecond.
        #expect((1...2).contains(pollTimeout(until: .now + .microseconds(1_500))))
        #expect(pollTimeout(until: .now + .seconds(10)) > 9_000)
    }
}
