@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct LoopGuardTests {
    @Test func aGuardedLoopsJobIsOnTheLoopAndTheTestIsNot() async throws {
        #expect(!LoopGuard.isOnLoop)
        let loop = try ThreadExecutor.spawn(name: "guarded-test")
        defer { loop.stop() }
        LoopGuard.guardBlockingCalls(on: loop)
        await Task(executorPreference: loop) {}.value
        let onLoop = await Task(executorPreference: loop) { LoopGuard.isOnLoop }.value
        #expect(onLoop == LoopGuard.isArmed)
    }

    @Test func aBlockingCallOffTheLoopIsAllowed() async {
        let status = await BlockingPool.shared.run { (try? sys_stat("/").get()) != nil }
        #expect(status)
    }

    #if DEBUG
        @Test func aBlockingCallOnTheLoopTraps() async {
            await #expect(processExitsWith: .failure) {
                let loop = try ThreadExecutor.spawn(name: "trap-test")
                LoopGuard.guardBlockingCalls(on: loop)
                // The flag is read when the loop's poll returns: the first job starts the pass.
                await Task(executorPreference: loop) {}.value
                await Task(executorPreference: loop) { _ = sys_stat("/") }.value
            }
        }

        @Test func anUnguardedLoopMayBlock() async throws {
            let loop = try ThreadExecutor.spawn(name: "unguarded-test")
            defer { loop.stop() }
            let stat = await Task(executorPreference: loop) { (try? sys_stat("/").get()) != nil }.value
            #expect(stat)
        }

        @Test func theLoopsOwnWaitDoesNotTrap() async throws {
            // The loop waits in poll(2) with a timeout for its timers; that wait is the loop's
            // and must not count as a job's blocking call.
            let loop = try ThreadExecutor.spawn(name: "guarded-wait")
            defer { loop.stop() }
            LoopGuard.guardBlockingCalls(on: loop)
            let clock = QuietClock(loop: loop)
            try await clock.sleep(for: .milliseconds(30))
            try await clock.sleep(for: .milliseconds(30))
            let onLoopAfter = await Task(executorPreference: loop) { LoopGuard.isOnLoop }.value
            #expect(onLoopAfter == LoopGuard.isArmed)
        }
    #endif
}
