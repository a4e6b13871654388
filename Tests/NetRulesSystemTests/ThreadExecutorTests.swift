@preconcurrency import Glibc
import NetRulesSystem
import Testing

/// The daemon's executor: every job of a task that prefers it, and of its children, actors and
/// resumptions, runs on its one thread.
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
            try? await QuietClock().sleep(for: .milliseconds(5))
            threads.append(pthread_self())
            return threads
        }.value
        #expect(threads.count == 7)
        #expect(Set(threads.map { UInt($0) }).count == 1, "jobs ran on \(Set(threads.map { UInt($0) }).count) threads")
        #expect(threads.allSatisfy { pthread_equal($0, pthread_self()) == 0 }, "a job ran on the test's thread")
    }

    @Test func runReturnsOnceStoppedAndTheQueueIsEmpty() async throws {
        let executor = ThreadExecutor()
        let ran = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DedicatedThread.start {
                executor.run()
                continuation.resume(returning: true)
            }
            Task(executorPreference: executor) { executor.stop() }
        }
        #expect(ran)
    }
}
