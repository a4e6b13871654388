public import NetRulesCore

extension Timeline {
    /// What a replay produced: the firings, and with `tracing` what the engine decided without firing.
    public struct Replay: Sendable {
        /// Every firing, in time order.
        public var firings: [Firing]
        /// What the engine decided without firing; empty unless the replay was tracing.
        public var trace: [TraceEvent]
    }

    /// Runs the real engine over the timeline on virtual time and returns every firing in time order.
    ///
    /// After the last step the clock runs on until no `for:` hold is pending, so a hold that
    /// started late still completes (or the timeline's end shows it never would).
    public func replay(rules: [Rule]) -> [Firing] {
        replay(rules: rules, clock: .utc).firings
    }

    /// Replays on `clock` (the timeline's `0s` is its origin), so `time:` windows and `once_per:`
    /// see the wall clock the caller chose; `time:` boundaries between steps are crossed in order.
    public func replay(
        rules: [Rule], places: [PlaceDefinition] = [], clock: LocalClock, tracing: Bool = false
    ) -> Replay {
        var engine = Engine(rules: rules, places: places)
        engine.setClock(clock)
        engine.tracing = tracing
        var firings: [Firing] = []
        for step in steps {
            firings += engine.apply(step.update, at: Instant(step.at))
        }
        while let deadline = engine.nextHoldDeadline {
            firings += engine.tick(at: deadline)
        }
        return Replay(firings: firings, trace: engine.takeTrace())
    }
}
