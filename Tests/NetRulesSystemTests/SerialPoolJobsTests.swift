@preconcurrency import Glibc
import NetRulesSystem
import Synchronization
import Testing

/// One owner's file jobs on the pool: one at a time, in the order submitted, and `idle()` returns
/// once all of them ran.
@Suite(.timeLimit(.minutes(1)))
struct SerialPoolJobsTests {
    @Test func jobsRunOneAtATimeInTheirOrderAndIdleWaitsForThemAll() async {
        let jobs = SerialPoolJobs()
        let record = Mutex<(order: [Int], running: Int, most: Int)>(([], 0, 0))
        for number in 0..<200 {
            jobs.submit {
                record.withLock {
                    $0.running += 1
                    $0.most = max($0.most, $0.running)
                }
                // Long enough that a second drainer, if there were one, would overlap.
                if number % 50 == 0 { usleep(2_000) }
                record.withLock {
                    $0.order.append(number)
                    $0.running -= 1
                }
            }
        }
        await jobs.idle()
        let seen = record.withLock { $0 }
        #expect(seen.order == Array(0..<200))
        #expect(seen.most == 1)
        // Idle with nothing queued returns at once.
        await jobs.idle()
    }
}
