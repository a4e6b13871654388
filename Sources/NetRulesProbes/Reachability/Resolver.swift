@preconcurrency import Glibc
import NetRulesCore
import NetRulesHTTP
import NetRulesSystem
import Synchronization

/// Name resolution with its own timeout.
///
/// `getaddrinfo(3)` blocks and cannot be interrupted, and a resolver that hangs would hang the
/// probe. So the call runs on a thread of the blocking executor, and the caller stops waiting
/// after the timeout; the abandoned call finishes (and frees its result) on its own thread.
enum Resolver {
    /// Why a name did not resolve.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case timeout(Duration)
        case failed(String)

        var description: String {
            switch self {
            case .timeout(let limit): "name resolution timed out after \(limit)"
            case .failed(let reason): "name resolution failed: \(reason)"
            }
        }
    }

    /// The addresses of `name`, IPv4 and IPv6, in `getaddrinfo`'s preference order (RFC 6724).
    ///
    /// An IP literal is returned as it is without calling the resolver.
    /// The timeout is a timer of `loop`.
    static func resolve(
        _ name: String, timeout: Duration, on loop: ThreadExecutor, executor: BlockingExecutor = .dedicatedThreads
    ) async -> Result<[IPAddress], Failure> {
        if let literal = IPAddress(name) { return .success([literal]) }
        let race = Race<Result<[IPAddress], Failure>>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.install(continuation)
                executor.spawn { race.finish(lookUp(name)) }
                Task(executorPreference: loop) {
                    // Cancelled, the sleep ends early; finishing the race then is harmless, as the
                    // first finish wins.
                    try? await QuietClock(loop: loop).sleep(for: timeout)
                    race.finish(.failure(.timeout(timeout)))
                }
            }
        } onCancel: {
            race.finish(.failure(.failed("cancelled")))
        }
    }

    private static func lookUp(_ name: String) -> Result<[IPAddress], Failure> {
        let found = sys_getaddrinfo(name) { list in
            var addresses: [IPAddress] = []
            var cursor = list
            while let entry = cursor {
                if let address = entry.pointee.ai_addr,
                    let ip = SocketAddress(address, length: entry.pointee.ai_addrlen)?.ipAddress,
                    !addresses.contains(ip)
                {
                    addresses.append(ip)
                }
                cursor = UnsafePointer(entry.pointee.ai_next)
            }
            return addresses
        }
        switch found {
        case .failure(let failure): return .failure(.failed(failure.message))
        case .success(let addresses): return addresses.isEmpty ? .failure(.failed("no addresses")) : .success(addresses)
        }
    }
}

/// A continuation that the first of several finishers resumes; later ones are ignored.
final class Race<Value: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Value, Never>?, early: Value?, done: Bool)>(
        (nil, nil, false))

    func install(_ continuation: CheckedContinuation<Value, Never>) {
        let early = state.withLock { state -> Value? in
            if state.done, let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func finish(_ value: Value) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard !state.done else { return nil }
            state.done = true
            if state.continuation == nil { state.early = value }
            return state.continuation.take()
        }
        continuation?.resume(returning: value)
    }
}
