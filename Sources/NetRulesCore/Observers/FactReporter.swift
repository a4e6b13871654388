/// Where an observer reports its updates: a function that takes each one, safe from any thread.
///
/// The daemon's reporter hands an update straight to its event loop, with no task in between;
/// a caller that wants the updates as a sequence wraps an `AsyncStream` continuation.
public struct FactReporter: Sendable {
    private let deliver: @Sendable (FactUpdate) -> Void

    /// A reporter that calls `deliver` with each update, on the observer's thread.
    /// - Parameter deliver: Takes an update; it must not block.
    public init(_ deliver: @escaping @Sendable (FactUpdate) -> Void) {
        self.deliver = deliver
    }

    /// A reporter that yields each update to `continuation`.
    /// - Parameter continuation: Receives the updates; its buffering policy decides what is kept.
    public init(_ continuation: AsyncStream<FactUpdate>.Continuation) {
        deliver = { continuation.yield($0) }
    }

    /// Reports one update.
    /// - Parameter update: The facts that changed.
    public func yield(_ update: FactUpdate) {
        deliver(update)
    }
}
