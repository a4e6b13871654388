import NetRulesCore
import NetRulesHTTP
import NetRulesSystem

/// Delivers one outbox entry: attempts with exponential backoff and jitter until a 2xx, a final
/// failure, or the attempts run out; parks it when `when: online` and the network is not online.
struct WebhookDelivery: Sendable {
    /// How a delivery ended for now.
    enum Outcome: Sendable {
        case delivered(status: Int)
        case failed(ActionError, status: Int?)
        /// Still in the outbox: held for `online`, or interrupted by cancellation (shutdown).
        case parked
    }

    var client: HTTPClient
    var outbox: Outbox
    var clock: any Clock<Duration>
    var environment: [String: String]
    var isOnline: @Sendable () -> Bool
    /// The longest wait between two attempts.
    var maximumBackoff: Duration = .seconds(600)
    /// Told of each failed attempt that will be retried (a warning), so a long backoff is not silent.
    var logger: Logger = .disabled

    /// Whether a status ends the delivery without a retry: redirects (never followed; the URL is
    /// wrong) and client errors other than 408 Request Timeout and 429 Too Many Requests.
    static func isFinal(_ status: Int) -> Bool {
        (300..<500).contains(status) && status != 408 && status != 429
    }

    /// The wait before retry `n` (1 for the first retry): `backoff × 2^(n-1)`, capped, times a
    /// random factor in [0.5, 1] so that many deliveries failing together do not retry together.
    static func delay(beforeRetry n: Int, backoff: Duration, maximum: Duration) -> Duration {
        let exponential = backoff * (1 << min(max(n - 1, 0), 20))
        return min(exponential, maximum) * Double.random(in: 0.5...1.0)
    }

    func deliver(_ entry: OutboxEntry) async -> (outcome: Outcome, attempts: Int) {
        var entry = entry
        var lastStatus: Int?
        var lastProblem = ""
        let attemptsBefore = entry.attemptsMade
        // An entry a previous process stored may read a variable this one lacks: sending it with
        // an empty value is never right, and no retry here could find the value.
        let missing = MissingSecrets.missing(entry.environmentNames, in: environment)
        if !missing.isEmpty {
            let error = MissingSecrets.error(missing, environment: environment, outcome: "nothing was sent")
            return (await fail(entry, .missingSecret, error.message, status: nil), 0)
        }
        while true {
            if entry.waitsForOnline && !isOnline() { return (.parked, entry.attemptsMade - attemptsBefore) }
            if Task.isCancelled { return (.parked, entry.attemptsMade - attemptsBefore) }
            entry.attemptsMade += 1
            let request = HTTPRequest(
                url: entry.requestURL(environment: environment), method: entry.method,
                headers: entry.renderedHeaders(environment: environment) + [("Idempotency-Key", entry.idempotencyKey)],
                body: entry.requestBody(environment: environment), timeout: .milliseconds(entry.timeoutMilliseconds),
                pinnedPublicKey: entry.pins.flatMap { $0.isEmpty ? nil : $0.joined(separator: ";") },
                caFile: entry.caFile
            )
            let made = entry.attemptsMade - attemptsBefore
            do {
                let response = try await client.send(request)
                lastStatus = response.status
                if (200..<300).contains(response.status) {
                    // Delivered; if the removal fails the entry is sent again later, which the
                    // idempotency key makes harmless.
                    let (outbox, delivered) = (self.outbox, entry)
                    await DedicatedThread.run { try? outbox.remove(delivered) }
                    return (.delivered(status: response.status), made)
                }
                lastProblem = "HTTP \(response.status)"
                if Self.isFinal(response.status) {
                    let message =
                        (300..<400).contains(response.status)
                        ? "the server redirected (HTTP \(response.status))"
                            + (response.location.map { " to \($0)" } ?? "")
                            + "; webhooks do not follow redirects: write the final URL in the rule"
                        : "the server refused the request with HTTP \(response.status)"
                    return (await fail(entry, .httpStatus, message, status: lastStatus), made)
                }
            } catch {
                if error.code == .cancelled { return (.parked, made) }
                lastProblem = "\(error.code)"
                // CURLE_SSL_PINNEDPUBKEYNOTMATCH: curl refused before sending anything.
                if error.curlCode == 90 { lastProblem = "the server's public key matches none of the webhook's pins" }
                // CURLE_PEER_FAILED_VERIFICATION and CURLE_SSL_CACERT_BADFILE.
                let trusted = entry.caFile.map { "the CAs of ca_file \($0)" } ?? "the system's CAs"
                if error.curlCode == 60 { lastProblem = "the server's certificate is not signed by \(trusted)" }
                if error.curlCode == 77, let caFile = entry.caFile { lastProblem = "cannot read ca_file \(caFile)" }
                if error.code == .invalidRequest {
                    // curl's words for a peer that does not speak HTTP at all ("Received HTTP/0.9").
                    let message =
                        error.message.contains("HTTP/0.9")
                        ? "the server at \(entry.displayURL) did not answer in HTTP; is another kind of service "
                            + "listening on that port?"
                        : "the request cannot be sent to \(entry.displayURL): \(error.message)"
                    return (await fail(entry, .transportFailed, message, status: nil), made)
                }
            }
            if entry.attemptsMade >= entry.attempts {
                let code: ActionError.Code = lastStatus == nil ? .transportFailed : .httpStatus
                return (
                    await fail(
                        entry, code, "gave up after \(entry.attemptsMade) attempts (last: \(lastProblem))",
                        status: lastStatus), made
                )
            }
            // Persist the count, so a restart continues the budget instead of starting over.
            let persisted = entry
            let outbox = self.outbox
            await DedicatedThread.run { try? outbox.store(persisted) }
            let wait = Self.delay(
                beforeRetry: entry.attemptsMade, backoff: .milliseconds(entry.backoffMilliseconds),
                maximum: maximumBackoff)
            logger.warning(
                "rule '\(entry.rule)' webhook \(entry.method) \(entry.displayURL): attempt \(entry.attemptsMade) of "
                    + "\(entry.attempts) failed (\(lastProblem)); retrying in \(DurationSyntax.format(wait))")
            do {
                try await clock.sleep(for: wait)
            } catch {
                return (.parked, made)
            }
        }
    }

    /// Moves the entry to `failed/` (on a dedicated thread: it fsyncs two directories).
    private func fail(_ entry: OutboxEntry, _ code: ActionError.Code, _ message: String, status: Int?) async -> Outcome
    {
        var error = ActionError(code, "webhook \(entry.method) delivery \(entry.idempotencyKey): \(message)")
        let outbox = self.outbox
        let moveError: ActionError? = await DedicatedThread.run {
            do throws(ActionError) {
                // Rewritten first, so the file in failed/ counts the attempt that just failed.
                try outbox.store(entry)
                try outbox.moveToFailed(entry)
                return nil
            } catch {
                return error
            }
        }
        if let moveError { error.message += " (and it could not be moved to outbox/failed: \(moveError))" }
        return .failed(error, status: status)
    }
}
