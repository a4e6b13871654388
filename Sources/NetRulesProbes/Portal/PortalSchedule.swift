/// When the portal probe runs next: quickly with backoff while not online, slowly once online.
///
/// A pure value: the observer asks it for the next delay after each verdict. While the
/// network is not online (a portal the user has not logged in to yet, or no connectivity),
/// the delay starts at 1 s and doubles up to ``maximumBackoff``, so a login is noticed within
/// seconds without hammering a dead network. Online re-checks every `onlineInterval`. A network
/// change (`recheck`) probes at once and starts the backoff again.
struct PortalSchedule: Sendable, Equatable {
    /// The first retry delay while not online.
    static let initialBackoff: Duration = .seconds(1)
    /// The longest delay while not online (never longer than the online interval).
    static let maximumBackoff: Duration = .seconds(64)

    let onlineInterval: Duration
    private(set) var backoff: Duration = PortalSchedule.initialBackoff

    init(onlineInterval: Duration) {
        self.onlineInterval = onlineInterval
    }

    /// The delay before the next probe, given the verdict just reached.
    mutating func delay(after connectivity: PortalVerdict.Connectivity) -> Duration {
        if connectivity == .online {
            backoff = Self.initialBackoff
            return onlineInterval
        }
        let delay = backoff
        backoff = min(backoff * 2, min(Self.maximumBackoff, max(onlineInterval, Self.initialBackoff)))
        return delay
    }

    /// Starts the backoff again (after a network change).
    mutating func reset() {
        backoff = Self.initialBackoff
    }
}
