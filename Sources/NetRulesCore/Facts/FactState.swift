/// What is known about one fact: a value, known absence, or nothing yet.
///
/// The three states keep "not on Wi-Fi" (`absent`: there is no SSID) apart from "the Wi-Fi
/// observer has not reported" (`unknown`), so a rule about the SSID stays undecided until the
/// observer has spoken.
public enum FactState: Hashable, Sendable {
    /// No observer has reported this fact (or its observer stopped).
    case unknown
    /// Known to have no value, written `null` in timelines and JSON.
    case absent
    /// Known to have this value.
    case value(FactValue)

    /// The value, when there is one.
    public var value: FactValue? {
        if case .value(let v) = self { return v }
        return nil
    }

    /// Whether an observer has reported this fact (as a value or as absent).
    public var isKnown: Bool {
        if case .unknown = self { return false }
        return true
    }
}

extension FactState: CustomStringConvertible {
    /// The value as plain text, `none` when absent (as every text netrules prints), or `unknown`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .absent: "none"
        case .value(let v): v.plainText
        }
    }
}
