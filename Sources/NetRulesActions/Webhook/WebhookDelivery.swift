import NetRulesCore
import NetRulesHTTP
import NetRulesMQTT
import NetRulesSystem

/// Delivers one outbox entry: attempts with exponential backoff and jitter until a 2xx, a final
/// failure, or the attempts run out; parks it when `when: online` and the network is not online.
///
/// An `mqtt:` message (`entry.mqtt`) is published instead, while the broker is connected, and
/// parked while it is not (`deliverMessage`): it waits for the broker, not for a retry budget.
struct WebhookDelivery: Sendable {
    /// How a delivery ended for now.
    enum Outcome: Sendable {
        case delivered(status: Int)
        /// An `mqtt:` message the broker acknowledged (QoS 1) or that went out (QoS 0).
        case published
        case failed(ActionError, status: Int?)
        /// Still in the outbox: held for `online`, or interrupted by cancellation (shutdown).
        case parked
    }

    var client: HTTPClient
    var outbox: Outbox
    var clock: any Clock<Duration>
    var environment: [String: String]
    var isOnline: @Sendable () -> Bool
    /// The broker `mqtt:` messages go to.
    var mqtt = MQTTOutlet()
    /// The longest wait between two attempts.
    var maximumBackoff: Duration = .seconds(600)
    /// Told of each failed attempt that will be retried (a warning), so a long backoff is not silent,
    /// and of files `failed/` rotation deleted (a notice).
    var logger: Logger = .disabled
    /// How many files `failed/` keeps, and for how long (`failed`, `failedAge`).
    var limits: OutboxLimits = .default
    /// How many requests may be under way at once, to one host and in all; every copy of this
    /// delivery shares them.
    var slots = DeliverySlots()
    /// Removes delivered entries from `outbox`, a group at a time (`OutboxRemovals`); nil removes
    /// each on its own.
    var removals: OutboxRemovals?

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

    /// Attempts `entry` until it is delivered, fails for good or parks.
    /// - Returns: the outcome, the attempts this call made, and the entry as it was last stored (its
    ///   `attemptsMade` counts them), for a parked entry to continue from.
    func deliver(_ entry: OutboxEntry) async -> (outcome: Outcome, attempts: Int, entry: OutboxEntry) {
        if entry.mqtt != nil { return await deliverMessage(entry) }
        var entry = entry
        // What the file holds: a cancelled attempt was not counted there.
        var stored = entry
        var lastStatus: Int?
        var lastProblem = ""
        let attemptsBefore = entry.attemptsMade
        // An entry a previous process stored may read a variable this one lacks: sending it with
        // an empty value is never right, and no retry here could find the value.
        let missing = MissingSecrets.missing(entry.environmentNames, in: environment)
        if !missing.isEmpty {
            let error = MissingSecrets.error(missing, environment: environment, outcome: "nothing was sent")
            return (await fail(entry, .missingSecret, error.message, status: nil), 0, entry)
        }
        while true {
            if entry.waitsForOnline && !isOnline() { return (.parked, entry.attemptsMade - attemptsBefore, entry) }
            if Task.isCancelled { return (.parked, entry.attemptsMade - attemptsBefore, entry) }
            let url = entry.requestURL(environment: environment)
            let host = DeliverySlots.hostKey(of: url)
            guard await slots.acquire(host: host) else {
                return (.parked, entry.attemptsMade - attemptsBefore, entry)
            }
            entry.attemptsMade += 1
            let request = HTTPRequest(
                url: url, method: entry.method,
                headers: entry.renderedHeaders(environment: environment) + [("Idempotency-Key", entry.idempotencyKey)],
                body: entry.requestBody(environment: environment), timeout: .milliseconds(entry.timeoutMilliseconds),
                pinnedPublicKey: entry.pins.flatMap { $0.isEmpty ? nil : $0.joined(separator: ";") },
                caFile: entry.caFile
            )
            let made = entry.attemptsMade - attemptsBefore
            do {
                let response = try await send(request, holding: host)
                lastStatus = response.status
                if (200..<300).contains(response.status) {
                    // Delivered; if the removal fails the entry is sent again later, which the
                    // idempotency key makes harmless.
                    await removeDelivered(entry)
                    return (.delivered(status: response.status), made, entry)
                }
                lastProblem = "HTTP \(response.status)"
                if Self.isFinal(response.status) {
                    let message =
                        (300..<400).contains(response.status)
                        ? "the server redirected (HTTP \(response.status))"
                            + (response.location.map { " to \($0)" } ?? "")
                            + "; webhooks do not follow redirects: write the final URL in the rule"
                        : "the server refused the request with HTTP \(response.status)"
                    return (await fail(entry, .httpStatus, message, status: lastStatus), made, entry)
                }
            } catch {
                if error.code == .cancelled { return (.parked, made, stored) }
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
                    return (await fail(entry, .transportFailed, message, status: nil), made, entry)
                }
            }
            if entry.attemptsMade >= entry.attempts {
                let code: ActionError.Code = lastStatus == nil ? .transportFailed : .httpStatus
                return (
                    await fail(
                        entry, code, "gave up after \(entry.attemptsMade) attempts (last: \(lastProblem))",
                        status: lastStatus), made, entry
                )
            }
            // Persist the count, so a restart continues the budget instead of starting over.
            let persisted = entry
            let outbox = self.outbox
            let failure = await BlockingPool.shared.run { () -> ActionError? in
                do throws(ActionError) { try outbox.store(persisted) } catch { return error }
                return nil
            }
            if let failure {
                // The retry goes on from memory; only a restart would count the attempt again.
                logger.log(.warning, "cannot record the webhook's attempt count in the outbox", error: failure)
            }
            stored = entry
            let wait = Self.delay(
                beforeRetry: entry.attemptsMade, backoff: .milliseconds(entry.backoffMilliseconds),
                maximum: maximumBackoff)
            logger.warning(
                "rule '\(entry.rule)' webhook \(entry.method) \(entry.displayURL): attempt \(entry.attemptsMade) of "
                    + "\(entry.attempts) failed (\(lastProblem)); retrying in \(DurationSyntax.format(wait))")
            do {
                try await clock.sleep(for: wait)
            } catch {
                return (.parked, made, entry)
            }
        }
    }

    /// Sends one attempt's request, then gives back the slot to `host` it was let in with.
    private func send(_ request: HTTPRequest, holding host: String) async throws(HTTPError) -> HTTPResponse {
        defer { slots.release(host: host) }
        return try await client.send(request)
    }

    /// Publishes an `mqtt:` message once the broker is connected; parked (still in the outbox)
    /// while it is not, or when the connection is lost before the broker's PUBACK.
    func deliverMessage(_ entry: OutboxEntry) async -> (outcome: Outcome, attempts: Int, entry: OutboxEntry) {
        let missing = MissingSecrets.missing(entry.environmentNames, in: environment)
        if !missing.isEmpty {
            let error = MissingSecrets.error(missing, environment: environment, outcome: "nothing was published")
            return (await fail(entry, .missingSecret, error.message, status: nil), 0, entry)
        }
        guard let publication = entry.mqtt, let link = mqtt.link, !Task.isCancelled else { return (.parked, 0, entry) }
        let answer = await link.send(
            topic: entry.url, payload: entry.requestBody(environment: environment) ?? [], qos: publication.qos,
            retain: publication.retain, userProperties: MQTTRendering.userProperties(of: entry))
        switch answer {
        case .delivered:
            // A removal that fails sends it again later: at least once, `firing-id` tells.
            await removeDelivered(entry)
            return (.published, 1, entry)
        case .refused(let reason):
            return (await fail(entry, .brokerRefused, reason, status: nil), 1, entry)
        case .notConnected:
            return (.parked, 0, entry)
        }
    }

    /// Removes a delivered entry from the outbox (off the loop); one that cannot be removed stays
    /// and is sent again later, which is logged.
    private func removeDelivered(_ entry: OutboxEntry) async {
        let outbox = self.outbox
        let removal: ActionError?
        if let removals {
            removal = await removals.remove(entry)
        } else {
            removal = await BlockingPool.shared.run { () -> ActionError? in
                do throws(ActionError) { try outbox.remove(entry) } catch { return error }
                return nil
            }
        }
        if let removal {
            logger.log(.warning, "a delivered \(entry.kind) stays in the outbox and will be sent again", error: removal)
        }
    }

    /// Moves the entry to `failed/` and rotates it (on a dedicated thread: it fsyncs two directories).
    private func fail(_ entry: OutboxEntry, _ code: ActionError.Code, _ message: String, status: Int?) async -> Outcome
    {
        var error = ActionError(code, "\(entry.deliveryName): \(message)")
        var entry = entry
        entry.failure = message
        let (outbox, limits, failed) = (self.outbox, self.limits, entry)
        let (moveError, rotation): (ActionError?, Outbox.Rotation) = await BlockingPool.shared.run {
            do throws(ActionError) {
                // Rewritten first, so the file in failed/ counts the attempt that just failed.
                try outbox.store(failed)
                try outbox.moveToFailed(failed)
            } catch {
                return (error, Outbox.Rotation())
            }
            return (nil, outbox.rotateFailed(keeping: limits.failed, maximumAge: limits.failedAge))
        }
        report(rotation)
        if let moveError { error.message += " (and it could not be moved to outbox/failed: \(moveError))" }
        return .failed(error, status: status)
    }

    /// Deletes what `failed/` holds beyond its limits, and says so.
    func rotateFailed() async {
        let (outbox, limits) = (self.outbox, self.limits)
        report(
            await BlockingPool.shared.run { outbox.rotateFailed(keeping: limits.failed, maximumAge: limits.failedAge) })
    }

    /// Logs what a rotation of `failed/` deleted, and why; nothing when it deleted nothing.
    func report(_ rotation: Outbox.Rotation) {
        func files(_ count: Int) -> String { count == 1 ? "1 file" : "\(count) files" }
        if rotation.byAge > 0 {
            logger.notice(
                "outbox: deleted \(files(rotation.byAge)) from failed/ older than "
                    + "\(DurationSyntax.format(limits.failedAge)) (--outbox-failed-age)")
        }
        if rotation.byCount > 0 {
            logger.notice(
                "outbox: deleted the oldest \(files(rotation.byCount)) from failed/, which keeps \(limits.failed) "
                    + "(--outbox-failed-limit)")
        }
    }
}
