@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Synchronization
import Testing

/// The daemon's executor: every job of a task that prefers it, and of its children, actors and
/// resumptions, runs on its one thread.
@Suite(.timeLimit(.minutes(1)))
struct ThreadExecutorTests {
    private actor Counter {
        var value = 0
        func increment() -> pthread_t {
            value += 1
            return pthread_self()
        }
    }

    @Test func tasksChildrenActorsAndResumptionsRunOnTheExecutorsThread() async throws {
        let executor = try ThreadExecutor.spawn(name: "nr-test-exec")
        defer { executor.stop() }
        let threads = await Task(executorPreference: executor) { () -> [pthread_t] in
            var threads = [pthread_self()]
            threads += await withTaskGroup(of: pthread_t.self) { group in
                for _ in 0..<3 { group.addTask { pthread_self() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            threads.append(await Counter().increment())
            // Resumed from another thread: back on the executor.
            _ = await DedicatedThread.run { 42 }
            threads.append(pthread_self())
            try? await QuietClock(loop: .testLoop).sleep(for: .milliseconds(5))
            threads.append(pthread_self())
            return threads
        }.value
        #expect(threads.count == 7)
        #expect(Set(threads.map { UInt($0) }).count == 1, "jobs ran on \(Set(threads.map { UInt($0) }).count) threads")
        #expect(threads.allSatisfy { pthread_equal($0, pthread_self()) == 0 }, "a job ran on the test's thread")
    }

    @Test func runReturnsOnceStoppedAndTheQueueIsEmpty() async throws {
        let executor = try ThreadExecutor()
        let ran = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DedicatedThread.start {
                executor.run()
                continuation.resume(returning: true)
            }
            Task(executorPreference: executor) { executor.stop() }
        }
        #expect(ran)
    }

    /// Waits up to 5 s for `condition`, checking every 2 ms.
    private func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    @Test func aWatchedDescriptorsHandlerRunsOnTheExecutorsThreadUntilUnwatched() async throws {
        let executor = try ThreadExecutor.spawn(name: "nr-test-watch")
        defer { executor.stop() }
        let event = try WakeEvent()
        defer { event.close() }
        let calls = Mutex<[pid_t]>([])
        let watch = executor.watch(event.fd) {
            event.reset()
            calls.withLock { $0.append(sys_gettid()) }
        }
        event.signal()
        #expect(try await eventually { calls.withLock { $0.count } == 1 })
        #expect(calls.withLock { $0 } == [executor.threadID])
        #expect(executor.threadID != sys_gettid())

        event.signal()
        #expect(try await eventually { calls.withLock { $0.count } == 2 })
        executor.unwatch(watch)
        event.signal()
        // A handler that still ran would have been called within this wait (the loop is idle).
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.withLock { $0.count } == 2)
    }

    @Test func unwatchFromAnotherThreadWaitsForTheRunningHandler() async throws {
        let executor = try ThreadExecutor.spawn(name: "nr-test-unwatch")
        defer { executor.stop() }
        let event = try WakeEvent()
        defer { event.close() }
        let state = Mutex((started: false, finished: false))
        let watch = executor.watch(event.fd) {
            event.reset()
            state.withLock { $0.started = true }
            usleep(100_000)
            state.withLock { $0.finished = true }
        }
        event.signal()
        #expect(try await eventually { state.withLock { $0.started } })
        executor.unwatch(watch)
        #expect(state.withLock { $0.finished }, "unwatch returned while the handler still ran")
    }

    private final class Order: Sendable {
        let steps = Mutex<[String]>([])
        func append(_ step: String) { steps.withLock { $0.append(step) } }
        var all: [String] { steps.withLock { $0 } }
    }

    @Test func idleWorkWaitsForTheJobsQueuedBeforeAndAfterIt() async throws {
        let executor = try ThreadExecutor.spawn(name: "nr-test-idle")
        defer { executor.stop() }
        let order = Order()
        await Task(executorPreference: executor) {
            executor.whenIdle { order.append("idle") }
            Task(executorPreference: executor) { order.append("later job") }
            order.append("job")
        }.value
        #expect(try await eventually { order.all.count == 3 })
        #expect(order.all == ["job", "later job", "idle"])
    }

    /// The loop's timers: each handler runs on the loop's thread once its deadline passed, in
    /// deadline order, and a cancelled one never runs.
    @Test func timersRunOnTheLoopAtTheirDeadlinesAndACancelledOneNever() async throws {
        let executor = try ThreadExecutor.spawn(name: "nr-test-timer")
        defer { executor.stop() }
        let fired = Mutex<[(Int, ContinuousClock.Instant, Bool)]>([])
        let start = ContinuousClock.now
        let loopThread = await Task(executorPreference: executor) { pthread_self() }.value
        for (n, delay) in [(2, 60), (1, 30), (3, 90)] {
            _ = executor.at(start + .milliseconds(delay)) {
                fired.withLock { $0.append((n, .now, pthread_equal(pthread_self(), loopThread) != 0)) }
            }
        }
        let cancelled = executor.at(start + .milliseconds(45)) { fired.withLock { $0.append((99, .now, false)) } }
        #expect(executor.cancel(cancelled))
        try await Task.sleep(for: .milliseconds(400))
        let runs = fired.withLock { $0 }
        #expect(runs.map(\.0) == [1, 2, 3])
        for (n, at, onLoop) in runs {
            #expect(at >= start + .milliseconds(30 * n), "timer \(n) ran before its deadline")
            #expect(onLoop, "timer \(n) ran off the loop's thread")
        }
        #expect(!executor.cancel(cancelled))
    }

    /// The MQTT link's wedge (issue 33): a client that re-armed a timer already due, every time it
    /// ran, kept the loop from ever polling, so no descriptor (signals, the control socket, the
    /// broker's CONNACK) was read again. Each pass of the loop now polls.
    @Test func aTimerReArmedInThePastForeverCannotKeepTheLoopFromItsDescriptors() async throws {
        let executor = try ThreadExecutor.spawn(name: "nr-test-fair")
        let spinning = Mutex(true)
        defer {
            spinning.withLock { $0 = false }
            executor.stop()
        }
        @Sendable func rearm() {
            guard spinning.withLock({ $0 }) else { return }
            _ = executor.at(.now - .seconds(1)) { rearm() }
        }
        rearm()
        let event = try WakeEvent()
        defer { event.close() }
        let read = Mutex(false)
        let watch = executor.watch(event.fd) {
            event.reset()
            read.withLock { $0 = true }
        }
        defer { executor.unwatch(watch) }
        // A job spinning the same way (a task that yields and goes again at once).
        let jobs = Task(executorPreference: executor) {
            while spinning.withLock({ $0 }) { await Task.yield() }
        }
        event.signal()
        #expect(try await eventually { read.withLock { $0 } }, "the watched descriptor was never read")
        spinning.withLock { $0 = false }
        await jobs.value
    }
}
