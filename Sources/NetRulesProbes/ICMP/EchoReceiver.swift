@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// The table of outstanding echo requests and the one task that receives every reply.
///
/// Senders add an entry and send on their own task; the receiving task waits for the sockets and
/// a `WakeEvent` (`Readiness`), resolves entries on replies, and expires them at their deadlines. Whoever
/// removes an entry from the table resumes its continuation, so each is resumed exactly once.
final class EchoReceiver: Sendable {
    private typealias Outcome = Result<Duration?, ICMPError>

    private struct Key: Hashable {
        var v6: Bool
        var sequence: UInt16
    }

    private struct Entry {
        var address: IPAddress
        var sentAt: ContinuousClock.Instant
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Outcome, Never>?
        var cancelled = false
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var nextSequence: [Bool: UInt16] = [false: .random(in: 0...UInt16.max), true: .random(in: 0...UInt16.max)]
        /// When the receiving task will next wake on its own; nil while it waits without a deadline.
        var sleepingUntil: ContinuousClock.Instant?
        var stopping = false
    }

    private let v4: ICMPEndpoint?
    private let v6: ICMPEndpoint?
    private let state = Mutex(State())
    private let wakeUp: WakeEvent
    /// Sent in every request's payload: a reply without it is someone else's.
    private let token: [UInt8]
    private let clock = ContinuousClock()
    /// The event loop that watches the sockets and runs the receiving task.
    private let loop: ThreadExecutor

    init(v4: ICMPEndpoint?, v6: ICMPEndpoint?, loop: ThreadExecutor) throws(SystemCallError) {
        self.v4 = v4
        self.v6 = v6
        self.loop = loop
        wakeUp = try WakeEvent()
        token = (0..<8).map { _ in UInt8.random(in: 0...255) } + Array("netrules".utf8)
        startReceiving()
    }

    func endpoint(v6 wantV6: Bool) -> ICMPEndpoint? { wantV6 ? v6 : v4 }

    func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first { wake() }
    }

    func ping(_ address: IPAddress, endpoint: ICMPEndpoint, timeout: Duration) async throws(ICMPError) -> Duration? {
        guard let key = reserve(address, v6: endpoint.v6, timeout: timeout) else {
            throw ICMPError(code: .closed, message: "the pinger is closed or has 65,536 requests in flight")
        }
        let packet = ICMPPacket.echoRequest(
            v6: endpoint.v6, identifier: endpoint.identifier, sequence: key.sequence, payload: token)
        let target = SocketAddress(address)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                send(packet, to: target, key: key, endpoint: endpoint, timeout: timeout, continuation: continuation)
            }
        } onCancel: {
            cancel(key)
        }
        return try outcome.get()
    }

    /// Picks a sequence number not in flight and adds a placeholder entry for it.
    private func reserve(_ address: IPAddress, v6: Bool, timeout: Duration) -> Key? {
        state.withLock { state -> Key? in
            guard !state.stopping, state.entries.count < Int(UInt16.max) else { return nil }
            var sequence = state.nextSequence[v6]!
            while state.entries[Key(v6: v6, sequence: sequence)] != nil { sequence &+= 1 }
            state.nextSequence[v6] = sequence &+ 1
            let now = clock.now
            let key = Key(v6: v6, sequence: sequence)
            state.entries[key] = Entry(address: address, sentAt: now, deadline: now + timeout)
            return key
        }
    }

    private func send(
        _ packet: [UInt8], to target: SocketAddress, key: Key, endpoint: ICMPEndpoint, timeout: Duration,
        continuation: CheckedContinuation<Outcome, Never>
    ) {
        // Timestamps are taken under the lock before sendto: on loopback the reply can be
        // received before sendto returns.
        let (install, mustWake) = state.withLock { state -> (Bool, Bool) in
            guard var entry = state.entries[key], !entry.cancelled, !state.stopping else {
                state.entries[key] = nil
                return (false, false)
            }
            let now = clock.now
            entry.sentAt = now
            entry.deadline = now + timeout
            entry.continuation = continuation
            state.entries[key] = entry
            let mustWake = state.sleepingUntil.map { entry.deadline < $0 } ?? true
            if mustWake { state.sleepingUntil = entry.deadline }
            return (true, mustWake)
        }
        guard install else {
            continuation.resume(returning: .failure(ICMPError(code: .cancelled, message: "the ping was cancelled")))
            return
        }
        if mustWake { wake() }
        do {
            try endpoint.socket.withFileDescriptor { fd throws(SystemCallError) in
                let sent = packet.withUnsafeBytes { bytes in
                    Result { () throws(SystemCallError) in
                        try target.withSockAddr { address, length throws(SystemCallError) in
                            try sys_sendto(fd, bytes, CInt(MSG_NOSIGNAL), address, length).get(call: "sendto")
                        }
                    }
                }
                _ = try sent.get()
            }
        } catch {
            let failure = ICMPError(
                code: .sendFailed,
                message: "cannot send to \(target.ipAddress.map { "\($0)" } ?? "?"): \(error.errno.message)",
                cause: error)
            state.withLock { $0.entries.removeValue(forKey: key) }?.continuation?.resume(returning: .failure(failure))
        }
    }

    private func cancel(_ key: Key) {
        let entry = state.withLock { state -> Entry? in
            guard var entry = state.entries[key] else { return nil }
            if entry.continuation == nil {
                entry.cancelled = true
                state.entries[key] = entry
                return nil
            }
            return state.entries.removeValue(forKey: key)
        }
        entry?.continuation?.resume(returning: .failure(ICMPError(code: .cancelled, message: "the ping was cancelled")))
    }

    private func wake() {
        wakeUp.signal()
    }

    // MARK: The receiving task

    /// Starts the task that receives every reply, on `loop`: a watch of the sockets and the wake
    /// event (`Readiness`, no thread of its own). It holds the receiver until `stop()` ends it.
    private func startReceiving() {
        Task(executorPreference: loop) { [self] in await receiveLoop() }
    }

    private func receiveLoop() async {
        let endpoints = [v4, v6].compactMap { $0 }
        // The sockets, then the wake event: a new earlier deadline, or the stop.
        var waitSet = (endpoints.map(\.socket) + [wakeUp.descriptor]).map { descriptor in
            // A socket is open until shutDown below, the wake event until its end; -1 (closed) is
            // ignored by poll(2).
            pollfd(fd: (try? descriptor.withFileDescriptor { $0 }) ?? -1, events: Int16(POLLIN), revents: 0)
        }
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            let deadline = state.withLock { state -> ContinuousClock.Instant? in
                let next = state.entries.values.lazy.filter { $0.continuation != nil }.map(\.deadline).min()
                state.sleepingUntil = next
                return next
            }
            do {
                // Not cancellable: nothing cancels this task; `stop()` signals the wake event.
                _ = try await Readiness.wait(on: loop, for: &waitSet, deadline: deadline, cancellable: false)
            } catch {
                // A wait that cannot be cancelled throws nothing; should it, give it a moment
                // rather than spin, then drain and expire as after a wait.
                try? await QuietClock(loop: loop).sleep(for: .milliseconds(100))
            }
            if waitSet[endpoints.count].revents != 0 {
                wakeUp.reset()
                if state.withLock({ $0.stopping }) { break }
            }
            // The loop reports only the first ready descriptor: every socket is
            // drained (non-blocking; an empty one answers EAGAIN at once).
            for endpoint in endpoints { drainReplies(endpoint, buffer: &buffer) }
            expire()
        }
        shutDown(endpoints)
    }

    private func drainReplies(_ endpoint: ICMPEndpoint, buffer: inout [UInt8]) {
        while true {
            var source = SocketAddress()
            let received = buffer.withUnsafeMutableBytes { bytes in
                source.withMutableSockAddr { address, length in
                    // EBADF: the socket is being shut down; the failure ends this drain like an
                    // empty queue.
                    (try? endpoint.socket.withFileDescriptor { fd throws(SystemCallError) in
                        sys_recvfrom(fd, bytes, address, &length)
                    }) ?? .failure(.badFileDescriptor)
                }
            }
            let now = clock.now
            guard case .success(let count) = received else { return }  // EAGAIN: drained.
            guard
                let reply = ICMPPacket.parseEchoReply(
                    buffer[0..<count], v6: endpoint.v6, includesIPHeader: endpoint.kind == .raw && !endpoint.v6),
                reply.identifier == endpoint.identifier, reply.payload.starts(with: token)
            else { continue }
            let key = Key(v6: endpoint.v6, sequence: reply.sequence)
            let entry = state.withLock { state -> Entry? in
                guard let entry = state.entries[key], entry.continuation != nil, entry.address == source.ipAddress
                else {
                    return nil
                }
                return state.entries.removeValue(forKey: key)
            }
            if let entry { entry.continuation?.resume(returning: .success(now - entry.sentAt)) }
        }
    }

    private func expire() {
        let now = clock.now
        let expired = state.withLock { state -> [Entry] in
            let keys = state.entries.filter { $0.value.continuation != nil && $0.value.deadline <= now }.keys
            return keys.compactMap { state.entries.removeValue(forKey: $0) }
        }
        for entry in expired { entry.continuation?.resume(returning: .success(nil)) }
    }

    private func shutDown(_ endpoints: [ICMPEndpoint]) {
        let remaining = state.withLock { state -> [Entry] in
            defer { state.entries = [:] }
            return Array(state.entries.values)
        }
        for entry in remaining {
            entry.continuation?.resume(returning: .failure(ICMPError(code: .closed, message: "the pinger was closed")))
        }
        for endpoint in endpoints { endpoint.socket.closeDiscardingError() }
        wakeUp.close()
    }
}
