import NetRulesSystem

extension ThreadExecutor {
    /// The tests' event loop: one thread of its own for the whole test process, as the `netrules`
    /// executable's main thread is the program's. Tests hand it to every source they make, the way
    /// the command line hands its loop down, so they run the production path; nothing finds it
    /// on its own.
    ///
    /// It is never stopped: a signal relay or a watch made by one test may outlive that test, as
    /// they outlive nothing in the daemon.
    package static let testLoop: ThreadExecutor = {
        do {
            // Not guarded (`LoopGuard`): a test's own body may continue on this thread after it
            // awaited something the loop resumed, and a test may block. The daemons the
            // integration testbed starts guard their loops.
            return try ThreadExecutor.spawn(name: "netrules-test")
        } catch {
            fatalError("cannot start the tests' event loop: \(error)")
        }
    }()
}
