import Testing

@testable import NetRulesProbes

/// The portal probe's "probe now" flag.
@Suite(.timeLimit(.minutes(1)))
struct RecheckSignalTests {
    /// Whether a wait in a task of its own returns. The answer comes through a stream, so a wait
    /// that never returns fails the test at its time limit instead of hanging it.
    static func waitReturns(on signal: RecheckSignal, inACancelledTask cancelled: Bool = false) async -> Bool {
        let (returns, continuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            if cancelled { withUnsafeCurrentTask { $0?.cancel() } }
            await signal.wait()
            continuation.yield()
        }
        defer { task.cancel() }
        var iterator = returns.makeAsyncIterator()
        return await iterator.next() != nil
    }

    @Test func aSignalBeforeTheWaitIsKept() async {
        let signal = RecheckSignal()
        signal.signal()
        #expect(await Self.waitReturns(on: signal))
    }

    /// Issue 21: cancelled before its continuation existed, a wait stored a waiter nobody would
    /// resume, and the portal observer's task group waited for it forever once its timer had fired.
    @Test func aWaitInAnAlreadyCancelledTaskReturns() async {
        let signal = RecheckSignal()
        #expect(await Self.waitReturns(on: signal, inACancelledTask: true))
        // It left no waiter behind to swallow the next signal: that one is kept for the next wait.
        signal.signal()
        #expect(await Self.waitReturns(on: signal))
    }
}
