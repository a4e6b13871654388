@preconcurrency import Glibc

/// How `waitReadable(_:events:wake:deadline:)` ended.
package enum WaitOutcome: Equatable, Sendable {
    /// The descriptor has one of the requested events (or an error or hang-up to report).
    case ready
    /// The wake event was signalled; it wins over a descriptor that is ready at the same time.
    case woken
    /// The deadline passed first.
    case timedOut
}

/// Blocks the calling thread in poll(2) until `fd` is ready for `events`, `wake` is signalled, or
/// `deadline` passes; `waitReady` is the one poll-plus-wake loop of the package.
///
/// EINTR is retried with the time that is left (`sys_poll`, see the EINTR policy in
/// `Syscalls.swift`), so a signal neither ends the wait early nor stretches it. A deadline that
/// has already passed still looks once, without blocking. Call it on a dedicated thread
/// (`DedicatedThread`), never on the cooperative pool.
///
/// - Parameters:
///   - fd: The descriptor; its owner keeps it open until this returns (`withFileDescriptor`).
///   - events: The poll(2) events to wait for; readable (`POLLIN`) unless told.
///   - wake: Another thread's way to end the wait early, or nil.
///   - deadline: When to give up, or nil to wait without limit.
/// - Returns: `.woken` when `wake` was signalled, else `.ready` or `.timedOut`.
/// - Throws: `SystemCallError` from poll(2).
package func waitReadable(
    _ fd: CInt, events: Int16 = Int16(POLLIN), wake: WakeEvent?, deadline: ContinuousClock.Instant?
) throws(SystemCallError) -> WaitOutcome {
    var descriptors = [pollfd(fd: fd, events: events, revents: 0)]
    return try waitReady(&descriptors, wake: wake, deadline: deadline)
}

/// `waitReadable` for several descriptors at once (a child's pipes and pidfd, the ICMP sockets):
/// blocks until one of `descriptors` has an event it asks for, `wake` is signalled, or `deadline`
/// passes. Each descriptor's `revents` then says what it has, also when the wake event wins, so
/// a caller can handle both.
///
/// - Parameters:
///   - descriptors: What to wait for; their `revents` are set on return (zero on `.timedOut`).
///   - wake: Another thread's way to end the wait early, or nil.
///   - deadline: When to give up, or nil to wait without limit.
/// - Returns: `.woken` when `wake` was signalled, else `.ready` or `.timedOut`.
/// - Throws: `SystemCallError` from poll(2).
package func waitReady(
    _ descriptors: inout [pollfd], wake: WakeEvent?, deadline: ContinuousClock.Instant?
) throws(SystemCallError) -> WaitOutcome {
    let count = descriptors.count
    if let wake { descriptors.append(pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)) }
    defer { if wake != nil { descriptors.removeLast() } }
    while true {
        let timeout = deadline.map(pollTimeout(until:)) ?? -1
        for index in descriptors.indices { descriptors[index].revents = 0 }
        let ready = try descriptors.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) in
            try sys_poll(buffer.baseAddress!, buffer.count, timeout).get(call: "poll")
        }
        if ready > 0 {
            if wake != nil && descriptors[count].revents != 0 { return .woken }
            if descriptors[..<count].contains(where: { $0.revents != 0 }) { return .ready }
        } else if let deadline, ContinuousClock.now >= deadline {
            return .timedOut
        }
    }
}

/// Milliseconds from now until `deadline` for poll(2): 0 once it has passed, rounded up otherwise,
/// so a wait never ends a fraction of a millisecond early and spins.
package func pollTimeout(until deadline: ContinuousClock.Instant) -> CInt {
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else { return 0 }
    let (seconds, attoseconds) = remaining.components
    return CInt(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
}
