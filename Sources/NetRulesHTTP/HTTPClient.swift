import Synchronization

/// A small HTTP/1.1 client over libcurl's easy interface.
///
/// Each ``send(_:)`` runs on a thread outside Swift's cooperative pool, because
/// `curl_easy_perform` blocks. It takes an easy handle from the client's pool, so a request to a
/// host the client talked to in the last minute reuses that connection (HTTP keep-alive) and its
/// TLS session. A connection is only reused by a request with the same pin, CA file and interface
/// as the one that made it: it was verified for those. Redirects are never followed, proxies from the
/// environment are ignored (a portal probe through a proxy tests the proxy), signals are not
/// used for timeouts (`CURLOPT_NOSIGNAL`, required in threaded programs), only `http` and
/// `https` are allowed, and TLS certificates are always verified.
///
/// The client is safe to share between tasks; copies share its pool of connections. See
/// `docs/design/0001-http-client.md` for why libcurl and not FoundationNetworking, and
/// `docs/design/0012-webhook-connection-reuse.md` for the connection reuse.
package struct HTTPClient: Sendable {
    private let executor: BlockingExecutor
    private let pool: CurlHandlePool?

    /// Creates a client that runs each transfer on a thread of its own.
    ///
    /// - Parameter reusesConnections: Whether connections are kept for later requests (the
    ///   default); false opens and closes one per request.
    package init(reusesConnections: Bool = true) {
        self.init(executor: .dedicatedThreads, reusesConnections: reusesConnections)
    }

    /// Creates a client that runs transfers with `executor` (tests use one inside a namespace).
    package init(executor: BlockingExecutor, reusesConnections: Bool = true) {
        self.executor = executor
        self.pool = reusesConnections ? CurlHandlePool() : nil
    }

    /// Sends `request` and returns the response, whatever its status.
    ///
    /// Cancelling the calling task returns at once with ``HTTPError/Code/cancelled``; the
    /// abandoned transfer notices within about a second (curl's progress callback) and stops.
    ///
    /// - Parameter request: The request; its timeout bounds the whole exchange.
    /// - Returns: The final response (a redirect is returned, not followed).
    /// - Throws: ``HTTPError`` when no response arrived: timeout, resolution, connection, TLS,
    ///   cancellation or an unusable request.
    package func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let control = TransferControl()
        let (executor, pool) = (self.executor, self.pool)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TransferResult, Never>) in
                guard control.install(continuation) else { return }
                executor.spawn {
                    control.finish(CurlTransfer.perform(request, control: control, pool: pool))
                }
            }
        } onCancel: {
            control.cancel()
        }
        return try result.get()
    }
}

typealias TransferResult = Result<HTTPResponse, HTTPError>

/// Joins an async caller and a blocking transfer: whichever of "finished" and "cancelled"
/// happens first resumes the caller, exactly once.
final class TransferControl: Sendable {
    private struct State {
        var continuation: CheckedContinuation<TransferResult, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Whether the caller has gone away; the transfer's progress callback polls this.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stores the caller's continuation; returns false (after resuming it) when already cancelled.
    func install(_ continuation: CheckedContinuation<TransferResult, Never>) -> Bool {
        let alreadyCancelled = state.withLock { state in
            if state.cancelled { return true }
            state.continuation = continuation
            return false
        }
        if alreadyCancelled {
            continuation.resume(returning: .failure(Self.cancelledError))
        }
        return !alreadyCancelled
    }

    func cancel() {
        let continuation = state.withLock { state in
            state.cancelled = true
            return state.continuation.take()
        }
        continuation?.resume(returning: .failure(Self.cancelledError))
    }

    func finish(_ result: TransferResult) {
        state.withLock { $0.continuation.take() }?.resume(returning: result)
    }

    private static let cancelledError = HTTPError(code: .cancelled, message: "the request was cancelled")
}
