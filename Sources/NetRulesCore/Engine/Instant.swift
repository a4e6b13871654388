/// A point on the engine's clock: a duration since an origin the caller chose.
///
/// The engine never reads a clock. The daemon passes the time since it started on
/// `ContinuousClock`; `simulate` and the tests pass virtual time.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The time since the origin.
    public var offset: Duration

    /// Creates the instant `offset` after the origin.
    public init(_ offset: Duration) { self.offset = offset }

    /// The origin.
    public static let zero = Instant(.zero)

    /// Earlier instants sort first.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    /// The instant `rhs` later.
    public static func + (lhs: Instant, rhs: Duration) -> Instant { Instant(lhs.offset + rhs) }
    /// The time from `rhs` to `lhs`; negative when `lhs` is earlier.
    public static func - (lhs: Instant, rhs: Instant) -> Duration { lhs.offset - rhs.offset }

    /// Seconds since the origin, as JSON carries it.
    public var seconds: Double { DurationSyntax.seconds(offset) }

    /// The offset as rule files write a duration, such as `2m10s`.
    public var description: String { DurationSyntax.format(offset) }
}
