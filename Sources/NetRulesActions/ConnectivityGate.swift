import Synchronization

/// Whether the network is online, readable from any delivery without a hop to the runner.
///
/// It keeps the one thing deliveries ask (online or not), not a copy of the `connectivity` fact:
/// the daemon's fact store owns the fact and tells the runner when it changes.
final class ConnectivityGate: Sendable {
    private let online = Mutex(false)

    /// Whether the network is `online`; unknown counts as not online.
    var isOnline: Bool { online.withLock { $0 } }

    /// Records the fact's new value; returns whether this made the network online.
    func update(_ value: String?) -> Bool {
        let nowOnline = value == "online"
        return online.withLock { wasOnline in
            defer { wasOnline = nowOnline }
            return !wasOnline && nowOnline
        }
    }
}
