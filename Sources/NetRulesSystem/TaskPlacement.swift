import Synchronization

/// Which executor the program's unstructured tasks prefer: one place to say it, set once at start.
///
/// The `netrules` executable sets a `ThreadExecutor` here before any task starts, so the daemon's
/// tasks never reach libdispatch's worker pool and an idle daemon never wakes up (design note
/// 0009). Tests and in-process callers leave it nil, meaning no preference: tasks run on the
/// global executor, as a plain `Task {}` does.
///
/// Every unstructured task on the daemon's path is created as
/// `Task(executorPreference: TaskPlacement.preferred) { … }`; structured children (task groups,
/// `async let`) and default actors follow their task's preference without being told.
package enum TaskPlacement {
    private static let preference = Mutex<(any TaskExecutor)?>(nil)

    /// The executor new unstructured tasks should prefer, or nil for no preference.
    package static var preferred: (any TaskExecutor)? {
        preference.withLock { $0 }
    }

    /// Sets the executor tasks prefer from now on; call it before starting any task.
    /// - Parameter executor: The executor, or nil for none.
    package static func prefer(_ executor: (any TaskExecutor)?) {
        preference.withLock { $0 = executor }
    }
}
