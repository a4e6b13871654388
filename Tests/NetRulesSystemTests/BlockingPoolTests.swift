import Synchronization
import Testing

@testable import NetRulesSystem

/// `BlockingPool`: jobs run off the caller's thread, in order on one thread, on at most `limit`
/// threads at once, and the threads beyond the first end once idle, unless the pool's threads are
/// all to live as long as the process (`ChildProcess.spawner`: a child's death signal follows the
/// thread that started it).
@Suite(.timeLimit(.minutes(1)))
struct BlockingPoolTests {
    final class Counts: Sendable {
        let state = Mutex((running: 0, most: 0))
    }

    /// The threads that ran a test's jobs.
    final class Threads: Sendable {
        let ids = Mutex<Set<Int32>>([])
    }

    @Test func aJobRunsOnAPoolThreadNeverTheCallers() async throws {
        let pool = BlockingPool(name: "test-pool", limit: 2)
        try pool.prepare()
        let caller = sys_gettid()
        let worker = await pool.run { sys_gettid() }
        #expect(worker != caller)
        #expect(pool.threadCount == 1)
    }

    @Test func jobsOnOneThreadRunInTheOrderTheyWereQueued() async {
        let pool = BlockingPool(name: "test-pool", limit: 1)
        let order = Mutex<[Int]>([])
        for number in 0..<200 { pool.spawn { order.withLock { $0.append(number) } } }
        await pool.run {}
        #expect(order.withLock { $0 } == Array(0..<200))
    }

    @Test func atMostTheLimitRunAtOnceAndTheExtraThreadsEndWhenIdle() async throws {
        let pool = BlockingPool(name: "test-pool", limit: 3, lingering: .milliseconds(100))
        let counts = Counts()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    await pool.run {
                        counts.state.withLock {
                            $0.running += 1
                            $0.most = max($0.most, $0.running)
                        }
                        // A blocking call, as a job on the pool is.
                        sys_sleep(milliseconds: 20)
                        counts.state.withLock { $0.running -= 1 }
                    }
                }
            }
        }
        #expect(counts.state.withLock { $0.most } == 3, "three threads worked at once, never more")
        #expect(pool.threadCount == 3)
        let deadline = ContinuousClock.now + .seconds(5)
        while pool.threadCount > 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(pool.threadCount == 1, "the first thread stays; the others ended after 100 ms idle")
    }

    @Test func withoutLingeringEveryThreadStays() async throws {
        let pool = BlockingPool(name: "test-pool", limit: 2, lingering: nil)
        let threads = Threads()
        // Two jobs at once need both threads.
        func burst() async {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        await pool.run {
                            threads.ids.withLock { _ = $0.insert(sys_gettid()) }
                            sys_sleep(milliseconds: 50)
                        }
                    }
                }
            }
        }
        await burst()
        let first = threads.ids.withLock { $0 }
        #expect(first.count == 2)
        // Ten times what ended the extra threads above.
        try await Task.sleep(for: .seconds(1))
        #expect(pool.threadCount == 2, "a thread of a pool without lingering ended")
        await burst()
        #expect(threads.ids.withLock { $0 } == first, "later jobs ran on other threads than the first burst's")
    }
}
