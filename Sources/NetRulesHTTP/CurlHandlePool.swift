internal import CCurl
import Synchronization

/// Idle curl easy handles kept between transfers, so a connection (and its TLS session) to a
/// host is reused by the next request to it instead of a new TCP connection and handshake.
///
/// Each easy handle keeps its own connection cache across `curl_easy_perform` calls and
/// `curl_easy_reset` (curl_easy_reset(3)); a handle is checked out by one transfer at a time,
/// on whichever thread runs it, and checked in afterwards. The connection cache is deliberately
/// not shared between handles: `CURL_LOCK_DATA_CONNECT` "is not supported … between multiple
/// concurrent threads" (CURLSHOPT_SHARE(3), KNOWN_BUGS 11.11 of libcurl 7.88), and our transfers
/// run on several threads. What is shared, per group, is a curl share handle with the DNS cache
/// and the TLS session cache (`netrules_curl_share_create`), so a second handle to the same host
/// resumes the session rather than making a full handshake.
///
/// Handles are grouped by ``Key``, the settings that decide whom a connection is trusted for
/// (the pin, the CA file, the interface): a handle, its connections and its group's TLS sessions
/// only ever serve requests with exactly the same key. libcurl 7.88 also refuses to reuse a
/// connection or a session whose pin or CA file differ (`Curl_ssl_config_matches`), but compares
/// pins without regard to case; the groups make the separation exact and independent of the
/// libcurl build that `dlopen` finds. See `docs/design/0012-webhook-connection-reuse.md`.
///
/// At most ``maximumIdle`` handles wait; checking one more in closes the least recently used
/// (and its connections). Idle connections have no timer: `CURLOPT_MAXAGE_CONN` (set per
/// transfer) closes one idle for over a minute when the next transfer looks at it.
/// Thread-safe: all state is behind a mutex, and curl calls that may block (closing handles)
/// run outside it.
final class CurlHandlePool: Sendable {
    /// What a pooled connection was made and verified with; only an identical key reuses it.
    struct Key: Hashable, Sendable {
        var pinnedPublicKey: String?
        var caFile: String?
        var interface: String?

        init(_ request: HTTPRequest) {
            pinnedPublicKey = request.pinnedPublicKey
            caFile = request.caFile
            interface = request.interface
        }
    }

    /// An easy handle checked out for one transfer. `@unchecked Sendable`: the pointer is used by
    /// one thread at a time, the transfer's between `checkOut` and `checkIn`, the pool's otherwise.
    struct Handle: @unchecked Sendable {
        fileprivate let easy: UnsafeMutableRawPointer
        fileprivate let key: Key

        /// The `CURL *`.
        var pointer: UnsafeMutableRawPointer { easy }
    }

    /// A `struct netrules_curl_share *`; `@unchecked Sendable`: libcurl locks it itself, through
    /// the mutexes the C shim installs.
    private struct Share: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct Idle {
        let easy: UnsafeMutableRawPointer
        /// `State.uses` when it was checked in; the smallest is the least recently used.
        let lastUse: UInt64
    }

    private struct Group {
        let share: Share
        var idle: [Idle] = []
        var checkedOut = 0
    }

    private struct State: @unchecked Sendable {
        // `@unchecked`: the raw handles inside are only touched with the mutex held, or after
        // being taken out of the state (then by one thread).
        var groups: [Key: Group] = [:]
        var uses: UInt64 = 0
        var idleCount = 0
    }

    /// What to free once the mutex is released: easy handles first, then the shares they used.
    private struct Garbage: @unchecked Sendable {
        var handles: [UnsafeMutableRawPointer] = []
        var shares: [Share] = []

        func free() {
            for handle in handles { netrules_curl_easy_cleanup(handle) }
            for share in shares { netrules_curl_share_free(share.pointer) }
        }
    }

    /// How many handles may wait between transfers, over all keys.
    let maximumIdle: Int
    private let state = Mutex(State())

    /// Creates an empty pool; libcurl must be loaded before the first ``checkOut(_:)``.
    init(maximumIdle: Int = 8) {
        self.maximumIdle = max(1, maximumIdle)
    }

    deinit {
        // Every handle is checked in by now: a transfer holds the pool (through its client).
        let garbage = state.withLock { state in
            var garbage = Garbage()
            for group in state.groups.values {
                garbage.handles += group.idle.map(\.easy)
                garbage.shares.append(group.share)
            }
            state.groups = [:]
            return garbage
        }
        garbage.free()
    }

    /// The most recently used idle handle for `key`, or a new one; nil when curl cannot make one.
    func checkOut(_ key: Key) -> Handle? {
        state.withLock { state -> Handle? in
            var group: Group
            if let existing = state.groups[key] {
                group = existing
            } else {
                guard let share = netrules_curl_share_create() else { return nil }
                group = Group(share: Share(pointer: share))
            }
            let easy: UnsafeMutableRawPointer
            if let idle = group.idle.popLast() {
                easy = idle.easy
                state.idleCount -= 1
            } else {
                guard let made = netrules_curl_easy_init() else {
                    if state.groups[key] == nil { netrules_curl_share_free(group.share.pointer) }
                    return nil
                }
                guard netrules_curl_setopt_share(made, group.share.pointer) == CURLE_OK else {
                    netrules_curl_easy_cleanup(made)
                    if state.groups[key] == nil { netrules_curl_share_free(group.share.pointer) }
                    return nil
                }
                easy = made
            }
            group.checkedOut += 1
            state.groups[key] = group
            return Handle(easy: easy, key: key)
        }
    }

    /// Returns a handle after its transfer: its options are reset (none may point at the
    /// transfer's buffers any more) and it waits for the next request with the same key.
    func checkIn(_ handle: Handle) {
        netrules_curl_easy_reset(handle.easy)
        let garbage = state.withLock { state -> Garbage in
            var garbage = Garbage()
            guard var group = state.groups[handle.key] else {
                // Not ours (cannot happen); closing it is the safe answer.
                garbage.handles.append(handle.easy)
                return garbage
            }
            group.checkedOut -= 1
            state.uses += 1
            group.idle.append(Idle(easy: handle.easy, lastUse: state.uses))
            state.groups[handle.key] = group
            state.idleCount += 1
            while state.idleCount > maximumIdle, let oldest = Self.leastRecentlyUsed(in: state.groups) {
                var group = state.groups[oldest]!
                garbage.handles.append(group.idle.removeFirst().easy)
                state.idleCount -= 1
                if group.idle.isEmpty && group.checkedOut == 0 {
                    state.groups[oldest] = nil
                    garbage.shares.append(group.share)
                } else {
                    state.groups[oldest] = group
                }
            }
            return garbage
        }
        garbage.free()
    }

    /// How many handles wait, over all keys (for tests).
    var idleCount: Int { state.withLock { $0.idleCount } }

    /// The key whose oldest idle handle has waited longest (each group's idle list is in check-in order).
    private static func leastRecentlyUsed(in groups: [Key: Group]) -> Key? {
        groups.filter { !$0.value.idle.isEmpty }.min { $0.value.idle[0].lastUse < $1.value.idle[0].lastUse }?.key
    }
}
