/// A named place from the top-level `places:` map: a condition over the facts, and proofs that
/// the network really is that place.
///
/// An SSID, a BSSID or a gateway's MAC is whatever an access point chooses to broadcast; a proof
/// is a TLS handshake whose server key matches a pin, which a spoofing network cannot present.
/// The engine derives `places.NAME` from the condition and the proofs' outcome (see
/// `PlaceStatus`); the daemon runs the proofs.
public struct PlaceDefinition: Sendable, CustomStringConvertible {
    /// The name rules use in `place: NAME` and `places.NAME`: letters, digits, `_` and `-`.
    public var name: String
    /// When the network claims to be this place (`when:`); it never reads `place` itself.
    public var condition: any Condition
    /// What proves the claim (`verify:`), all of which must pass; none means the claim is enough.
    public var proofs: [PlaceProof]
    /// How often the proofs run again while the condition holds.
    public var verifyInterval: Duration
    /// How long one proof may take before it fails as a timeout.
    public var timeout: Duration
    /// `FILE:LINE:COL` of its definition.
    public var origin: String
    /// A digest of its definition: a reload keeps the proofs' outcome of a place whose name and
    /// fingerprint are unchanged. Empty: always treated as changed.
    public var fingerprint: String

    /// Fifteen minutes between re-verifications, as the issue asked: keys do not change faster.
    public static let defaultVerifyInterval: Duration = .seconds(15 * 60)
    /// Three seconds per proof: a LAN server answers in milliseconds, a dead one never.
    public static let defaultTimeout: Duration = .seconds(3)

    /// Creates a place; unset timings take the defaults above.
    public init(
        name: String, condition: any Condition, proofs: [PlaceProof] = [],
        verifyInterval: Duration = PlaceDefinition.defaultVerifyInterval,
        timeout: Duration = PlaceDefinition.defaultTimeout, origin: String = "", fingerprint: String = ""
    ) {
        self.name = name
        self.condition = condition
        self.proofs = proofs
        self.verifyInterval = verifyInterval
        self.timeout = timeout
        self.origin = origin
        self.fingerprint = fingerprint
    }

    /// What Home Assistant's place sensor shows when the daemon knows no place is here (`place`
    /// known absent), as `places.NAME` says of a place that is not here. No place may be named
    /// so, or "no place" and that place would read alike.
    public static let noPlace = "away"

    /// Whether `text` can name a place: letters, digits, `_` and `-`, so `places.NAME` stays one
    /// dotted component and a template can name it.
    public static func isValidName(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-"
            }
    }

    /// The place as `explain` shows it: `office when ssid in [XF-WORLD], verified by 1 proof`.
    public var description: String {
        let proofText = proofs.isEmpty ? "no proof" : proofs.map(\.description).joined(separator: ", ")
        return "\(name) when \(condition), verified by \(proofText)"
    }

    /// The keys whose change means "this may be another network now": the condition's, and where
    /// the laptop is (the access point, the interface, the route, addresses and DNS). A change of
    /// one invalidates the proofs' outcome.
    public var recheckKeys: Set<FactKey> {
        Set(condition.readKeys).union(Self.networkKeys)
    }

    /// The facts that say which network the machine is on: the Wi-Fi network and its access point
    /// (a roam to another access point with the same addresses is another network until proved),
    /// the Wi-Fi interface, and where the default route leads.
    public static let networkKeys: Set<FactKey> = [
        .ssid, .bssid, .interface, .ip, .gateway, .gateway6, .gatewayMAC, .dns, .network,
    ]
}
