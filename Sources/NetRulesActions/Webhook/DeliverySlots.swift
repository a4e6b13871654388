import Synchronization

/// How many webhook requests may be under way at once: at most `perHost` to one host (its scheme,
/// host and port: `hostKey(of:)`) and `total` in all; a request beyond either waits its turn.
///
/// A slot is held for one attempt's request only, never across the backoff between attempts, so a
/// failing host's retries wait without holding up anything. Waiting requests are let in first come,
/// first served among those that fit: a request to a host at its limit does not hold up one to
/// another host. Thread-safe: the state sits behind a `Mutex`, and a slot is given by resuming the
/// waiter's continuation outside the lock.
final class DeliverySlots: Sendable {
    /// How many requests to one host may be under way at once by default.
    static let defaultPerHost = 8
    /// How many requests may be under way at once in all by default.
    static let defaultTotal = 64

    private struct Waiter {
        var id: UInt64
        var host: String
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running: [String: Int] = [:]
        var runningTotal = 0
        var waiters: [Waiter] = []
        /// The `acquire` calls that have not reached the lock yet, and whether each was cancelled
        /// meanwhile (it then returns false at once).
        var arriving: [UInt64: Bool] = [:]
        var nextID: UInt64 = 0
        /// The most requests that were under way at once, for tests and measurements.
        var peak = 0
    }

    let perHost: Int
    let total: Int
    private let state = Mutex(State())

    init(perHost: Int = defaultPerHost, total: Int = defaultTotal) {
        self.perHost = max(1, perHost)
        self.total = max(1, total)
    }

    /// The most requests that were under way at once since the slots were made.
    var peak: Int { state.withLock { $0.peak } }

    /// Waits for a slot to `host` (a `hostKey`).
    /// - Returns: true with the slot held (give it back with `release`); false when the task was
    ///   cancelled first, without one.
    func acquire(host: String) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.arriving[state.nextID] = false
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let granted: Bool? = state.withLock { state in
                    if state.arriving.removeValue(forKey: id) == true { return false }
                    // Behind an earlier waiter for the same host: first come, first served.
                    if !state.waiters.contains(where: { $0.host == host }),
                        Self.fits(host, in: state, perHost: perHost, total: total)
                    {
                        Self.take(host, in: &state)
                        return true
                    }
                    state.waiters.append(Waiter(id: id, host: host, continuation: continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    // Not queued yet, or granted already (then nothing to undo).
                    if state.arriving[id] != nil { state.arriving[id] = true }
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Gives back a slot `acquire` returned for `host`, and lets in the waiters that now fit.
    func release(host: String) {
        let admitted: [Waiter] = state.withLock { state in
            state.running[host, default: 1] -= 1
            if state.running[host] == 0 { state.running[host] = nil }
            state.runningTotal -= 1
            var admitted: [Waiter] = []
            var index = 0
            while index < state.waiters.count, state.runningTotal < total {
                let waiter = state.waiters[index]
                if Self.fits(waiter.host, in: state, perHost: perHost, total: total) {
                    Self.take(waiter.host, in: &state)
                    admitted.append(state.waiters.remove(at: index))
                } else {
                    index += 1
                }
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume(returning: true) }
    }

    private static func fits(_ host: String, in state: State, perHost: Int, total: Int) -> Bool {
        state.runningTotal < total && state.running[host, default: 0] < perHost
    }

    private static func take(_ host: String, in state: inout State) {
        state.running[host, default: 0] += 1
        state.runningTotal += 1
        state.peak = max(state.peak, state.runningTotal)
    }

    /// The slot key of a request URL: its scheme, host and port, lowercased, the port made explicit
    /// (`https://Example.com/a` and `https://example.com:443/b` share one); user information, path,
    /// query and fragment are no part of it.
    static func hostKey(of url: String) -> String {
        let text = Substring(url)
        guard let separator = text.firstRange(of: "://") else { return url.lowercased() }
        let scheme = text[..<separator.lowerBound].lowercased()
        var authority = text[separator.upperBound...]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            authority = authority[..<end]
        }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority.lowercased()
        // A port follows the last colon, unless it sits inside an IPv6 literal's brackets.
        let hasPort = host.lastIndex(of: ":").map { colon in !host[colon...].contains("]") } ?? false
        if !hasPort {
            switch scheme {
            case "http": host += ":80"
            case "https": host += ":443"
            default: break
            }
        }
        return "\(scheme)://\(host)"
    }
}
