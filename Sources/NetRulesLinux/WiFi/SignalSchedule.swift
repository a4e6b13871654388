/// When the Wi-Fi observer samples the signal next, as the timeout of its `poll`.
///
/// A pure value (time is an argument), so "no reader, no timer" is tested without a kernel: with
/// no interval, or nothing associated to sample, the timeout is -1 and `poll` waits for events
/// alone.
struct SignalSchedule {
    /// The next sample's deadline; nil when none is armed.
    private(set) var next: ContinuousClock.Instant?

    /// The `poll` timeout in milliseconds until the next sample (rounded up, so the wait never
    /// ends before the deadline), arming the next sample one interval from `now` when none is
    /// armed; -1, and nothing armed, when `interval` is nil or nothing is associated.
    mutating func timeout(interval: Duration?, isAssociated: Bool, now: ContinuousClock.Instant) -> Int32 {
        guard let interval, isAssociated else {
            next = nil
            return -1
        }
        // A shorter interval than the armed one (a new reader) takes effect now.
        let due = min(next ?? now + interval, now + interval)
        next = due
        let (seconds, attoseconds) = max(due - now, .zero).components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    /// Whether the armed sample is due at `now`; if so it is taken (the next `timeout` arms the next).
    mutating func takeDue(now: ContinuousClock.Instant) -> Bool {
        guard let next, next <= now else { return false }
        self.next = nil
        return true
    }
}
