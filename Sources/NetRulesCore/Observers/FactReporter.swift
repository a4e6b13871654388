/// Where an observer reports its updates: a function that takes each one, safe from any thread.
///
/// The daemon's reporter hands an update straight to its event loop, with no task in between;
/// a caller that wants the updates as a sequence wraps an `AsyncStream` continuation.
public struct FactReporter: Sendable {
    private let deliver: @Sendable (FactUpdate) -> Void
    private let deliverAll: (@Sendable ([FactUpdate]) -> Void)?

    /// A reporter that calls `deliver` with each update, on the observer's thread.
    /// - Parameters:
    ///   - deliver: Takes an update; it must not block.
    ///   - deliverAll: Takes several updates, in order, as one hand-over (the daemon: one event
    ///     for what a plugin printed in one read); nil to call `deliver` with each.
    public init(
        _ deliver: @escaping @Sendable (FactUpdate) -> Void, all deliverAll: (@Sendable ([FactUpdate]) -> Void)? = nil
    ) {
        self.deliver = deliver
        self.deliverAll = deliverAll
    }

    /// A reporter that yields each update to `continuation`.
    /// - Parameter continuation: Receives the updates; its buffering policy decides what is kept.
    public init(_ continuation: AsyncStream<FactUpdate>.Continuation) {
        deliver = { continuation.yield($0) }
        deliverAll = nil
    }

    /// Reports one update.
    /// - Parameter update: The facts that changed.
    public func yield(_ update: FactUpdate) {
        deliver(update)
    }

    /// Reports several updates, in order, as one hand-over where the receiver takes them so;
    /// nothing for none.
    /// - Parameter updates: Each as `yield(_:)` would report it.
    public func yield(contentsOf updates: [FactUpdate]) {
        guard !updates.isEmpty else { return }
        if let deliverAll, updates.count > 1 {
            deliverAll(updates)
        } else {
            for update in updates { deliver(update) }
        }
    }
}
