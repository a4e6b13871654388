import NetRulesCore
import Testing

/// Drives an `Engine` on virtual time and checks every firing is accounted for.
///
/// Like NIO's `EmbeddedChannel.finish()`: call `finish()` at the end of a test, and it fails
/// the test when firings were produced that the test never consumed.
package struct EngineDriver {
    package private(set) var engine: Engine
    package private(set) var now: Instant = .zero
    private var unconsumed: [Firing] = []

    package init(rules: [Rule], places: [PlaceDefinition] = []) {
        engine = Engine(rules: rules, places: places)
    }

    /// Records a proof's outcome for the place's current round, at `seconds`.
    package mutating func prove(_ place: String, _ outcome: ProofOutcome, at seconds: Double) {
        advance(to: seconds)
        let round = engine.proofRound(ofPlace: place) ?? 0
        unconsumed += engine.recordProof(outcome, place: place, round: round, at: now).firings
    }

    /// Moves the clock to `seconds` since the start and applies an update there.
    package mutating func set(_ values: [FactKey: FactValue?], at seconds: Double) {
        advance(to: seconds)
        unconsumed += engine.apply(FactUpdate(values: values), at: now)
    }

    /// Applies a raw update (e.g. forgetting keys) at `seconds`.
    package mutating func apply(_ update: FactUpdate, at seconds: Double) {
        advance(to: seconds)
        unconsumed += engine.apply(update, at: now)
    }

    /// Moves the clock forward, completing due holds.
    package mutating func advance(to seconds: Double) {
        let target = Instant(.milliseconds(Int64(seconds * 1000 + 0.5)))
        precondition(target >= now, "the virtual clock only moves forward")
        now = target
        unconsumed += engine.tick(at: now)
    }

    /// Takes the firings produced so far as `rule:edge@seconds` strings.
    package mutating func take() -> [String] {
        defer { unconsumed = [] }
        return unconsumed.map { "\($0.rule):\($0.edge)@\(FactValue.format($0.at.seconds))" }
    }

    /// Takes the firings produced so far.
    package mutating func takeFirings() -> [Firing] {
        defer { unconsumed = [] }
        return unconsumed
    }

    /// Fails the test when firings are left unconsumed.
    package func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            unconsumed.isEmpty,
            "unconsumed firings: \(unconsumed.map { "\($0.rule):\($0.edge)" })",
            sourceLocation: sourceLocation
        )
    }
}
