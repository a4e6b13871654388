public import NetRulesCore

extension Timeline {
    /// Runs the real engine over the timeline on virtual time and returns every firing in time order.
    ///
    /// After the last step the clock runs on until no `for:` hold is pending, so a hold that
    /// started late still completes (or the timeline's end shows it never would).
    public func replay(rules: [Rule]) -> [Firing] {
        var engine = Engine(rules: rules)
        var firings: [Firing] = []
        for step in steps {
            firings += engine.apply(step.update, at: Instant(step.at))
        }
        while let deadline = engine.nextDeadline {
            firings += engine.tick(at: deadline)
        }
        return firings
    }
}
