import Synchronization
import Testing

@testable import NetRulesSystem

/// `BlockingPool`: jobs run off the caller's thread, in order on one thread, on at most `limit`
/// threads at once, and the threads beyond the first end once idle.
@Suite(.timeLimit(.minutes(1)))
struct BlockingPoolTests {
    final class Counts: Sendable {
        let state = Mutex((running: 0, most: 0))
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
}
