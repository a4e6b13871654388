/// The value of `places.NAME`.
///
/// `here` needs the condition *and* every proof; a proof that failed or has not finished leaves
/// the place `claimed`, so a rule on `place: home` does not act on trust not yet earned, and a
/// VPN rule on `not: { place: home }` treats a claimed home as away.
public enum PlaceStatus: String, Sendable, CaseIterable {
    /// The condition holds and every proof passed (or the place has none).
    case here
    /// The condition holds, but a proof failed or has not finished.
    case claimed
    /// The condition does not hold.
    case away
}

/// The value of `places.NAME.proof`: where the place's proofs stand.
public enum ProofState: String, Sendable, CaseIterable {
    /// The network changed since the proofs last ran: they are running (or will).
    case pending
    /// Every proof passed.
    case passed
    /// A proof failed; `places.NAME.reason` says why.
    case failed
}

/// What one run of a place's proofs concluded, as the prober reports it to the engine.
public enum ProofOutcome: Hashable, Sendable {
    /// Every proof passed.
    case passed
    /// A proof failed, for this reason (`pin mismatch: … presented sha256//…`, a timeout, …).
    case failed(reason: String)
}

extension FactKey {
    /// `place`: the name of the place that is `here` (the first in file order), null when none.
    public static let place: FactKey = "place"

    /// `places.NAME`: `here`, `claimed` or `away`.
    public static func placeStatus(_ name: String) -> FactKey { FactKey("places.\(name)") }

    /// `places.NAME.proof`: `pending`, `passed` or `failed`; null while the condition does not hold.
    public static func placeProof(_ name: String) -> FactKey { FactKey("places.\(name).proof") }

    /// `places.NAME.reason`: why the last proof failed; null unless it did.
    public static func placeReason(_ name: String) -> FactKey { FactKey("places.\(name).reason") }
}
