import Synchronization

/// The latest `connectivity` fact, readable from any delivery without a hop to the runner.
final class ConnectivityGate: Sendable {
    private let state = Mutex<String?>(nil)

    /// Whether the network is `online`; unknown counts as not online.
    var isOnline: Bool { state.withLock { $0 == "online" } }

    /// Records a new value; returns whether this made the network online.
    func update(_ value: String?) -> Bool {
        state.withLock { current in
            defer { current = value }
            return current != "online" && value == "online"
        }
    }
}
