import NetRulesCore
import NetRulesSystem
import Synchronization

extension MQTTLink {
    /// The broker's first answer to one connection attempt.
    package enum Answer: Sendable, Equatable {
        /// The broker accepted the connection (CONNACK success).
        case connected
        /// The attempt failed or the broker refused it; the link's reason in words.
        case failed(String)
        /// Nothing came back within the time limit.
        case timedOut
    }

    /// Connects once with `configuration` and returns the broker's first answer, then disconnects.
    ///
    /// The connection speaks for nobody: it sets no Will, publishes nothing (`announces` is
    /// false) and subscribes to nothing, so a check beside a running daemon (`netrules doctor`)
    /// changes nothing a subscriber sees. Give it a client id of its own: a broker drops the
    /// older session of a client id that connects again.
    ///
    /// A connect that is still blocked when the time is up (DNS or a TCP handshake that gets no
    /// answer, inside libmosquitto) is left to end on its own thread; this returns regardless.
    /// - Throws: `MQTTError` when libmosquitto cannot be loaded, or `SystemCallError` for the
    ///   wake event.
    package static func connectOnce(
        _ configuration: Configuration, within limit: Duration, on loop: ThreadExecutor
    ) async throws -> Answer {
        var configuration = configuration
        configuration.announces = false
        configuration.subscriptions = []
        let (events, feed) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let link = try MQTTLink(configuration: configuration, loop: loop, logger: .disabled) { feed.yield($0) }
        let ended = EndFlag()
        Task(executorPreference: loop) {
            do {
                try await link.run()
            } catch {
                feed.yield(.disconnected("cannot start the MQTT client's thread: \(error)"))
            }
            ended.value.store(true, ordering: .releasing)
            feed.finish()
        }
        let answer = await withTaskGroup(of: Answer?.self) { group -> Answer in
            group.addTask {
                for await event in events {
                    switch event {
                    case .connected: return .connected
                    case .disconnected(let reason): return .failed(reason)
                    case .message: continue
                    }
                }
                return nil
            }
            group.addTask {
                do {
                    try await QuietClock(loop: loop).sleep(for: limit)
                } catch {
                    return nil  // cancelled: the other child answered first
                }
                return .timedOut
            }
            var answer: Answer = .timedOut
            if case let first?? = await group.next() { answer = first }
            group.cancelAll()
            return answer
        }
        link.stop()
        // A loop that sees the stop ends at once; one blocked in connect is not waited for long
        // (awaiting `running` would wait for it however long it takes).
        let until = ContinuousClock.now + .seconds(1)
        while !ended.value.load(ordering: .acquiring), ContinuousClock.now < until {
            // Nothing cancels this wait but the caller, who gets the answer either way.
            try? await Task.sleep(for: .milliseconds(5))
        }
        return answer
    }
}

/// Set once by the task that ran a one-shot link, when the link ended.
private final class EndFlag: Sendable {
    let value = Atomic<Bool>(false)
}
