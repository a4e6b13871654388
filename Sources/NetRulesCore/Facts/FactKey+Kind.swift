/// What kind of value a built-in fact holds, so that conditions and timelines compare and
/// normalise it as what it is rather than as text.
public enum FactKind: Sendable, Hashable {
    /// A MAC address (`bssid`, `gateway.mac`): `A4-2B-8C-92-47-3C`, `a42b8c92473c` and
    /// `a4:2b:8c:92:47:3c` are the same value.
    case mac
    /// An IP address, or a list of them (`gateway`, `gateway6`, `dns`; `ip` holds `ADDRESS/PREFIX`):
    /// `2001:DB8::1` and `2001:db8:0:0::1` are the same value.
    case address
    /// Anything else: compared as text (or as numbers when both sides are numbers).
    case text
}

extension FactKey {
    /// The kind of value this key holds; plugin facts are text.
    public var kind: FactKind {
        switch self {
        case .bssid, .gatewayMAC: .mac
        case .gateway, .gateway6, .dns, .ip: .address
        default: .text
        }
    }

    /// `text` written as this key's kind writes it (`bssid`: `a4:2b:8c:92:47:3c`; `gateway`:
    /// the canonical address; `ip`: canonical `ADDRESS/PREFIX`), or nil when it cannot be one.
    /// Text facts are returned unchanged.
    public func normalized(_ text: String) -> String? {
        switch kind {
        case .text: return text
        case .mac: return MACAddress(text)?.description
        case .address:
            if self == .ip, text.contains("/") { return CIDR(text)?.description }
            return IPAddress(text)?.description
        }
    }

    /// The address part of one element of this key's value (`ip` elements carry a prefix).
    func address(in text: String) -> IPAddress? {
        if let cidr = CIDR(text), text.contains("/") { return cidr.address }
        return IPAddress(text)
    }
}

extension FactKey {
    /// The words a built-in fact can hold, when it holds one of a fixed set; nil otherwise.
    public var allowedWords: [String]? {
        switch self {
        case .connectivity: ["online", "portal", "offline"]
        case .network: ["wifi", "wired", "none"]
        default:
            switch namespace {
            case "hosts": ["reachable", "unreachable"]
            case "interfaces": ["up", "down"]
            case "places":
                switch rawValue.split(separator: ".").count {
                case 2: PlaceStatus.allCases.map(\.rawValue)
                case 3 where rawValue.hasSuffix(".proof"): ProofState.allCases.map(\.rawValue)
                default: nil
                }
            default: nil
            }
        }
    }

    /// Whether the key is one netrules itself knows: the vocabulary, or a host or interface fact.
    public var isBuiltIn: Bool {
        let namespace = self.namespace
        return FactCatalog.fixedKeySet.contains(self) || FactKey.vocabularyNamespaces.contains { $0[...] == namespace }
    }

    /// Checks a value a timeline (or a test) gives this key, and writes it as the observers would:
    /// MACs and addresses normalised, words checked. Returns the value, or why it cannot be this
    /// fact (with a hint).
    public func checkedValue(_ text: String) -> Result<String, FactValueProblem> {
        if let words = allowedWords {
            guard words.contains(text) else {
                return .failure(
                    FactValueProblem(
                        message: "'\(text)' is not a value '\(self)' can have",
                        hint: EditDistance.closest(to: text, among: words).map { "did you mean '\($0)'?" }
                            ?? "it is one of: \(words.joined(separator: ", "))"))
            }
            return .success(text)
        }
        switch kind {
        case .text:
            if self == .signal || self == .frequency, Double(text)?.isFinite != true {
                return .failure(FactValueProblem(message: "'\(text)' is not a number, and '\(self)' is one", hint: nil))
            }
            return .success(text)
        case .mac:
            guard let normalized = normalized(text) else {
                return .failure(
                    FactValueProblem(
                        message: "'\(text)' is not a MAC address, and '\(self)' is one",
                        hint: "write it like a4:2b:8c:92:47:3c (any case, ':', '-' or none)"))
            }
            return .success(normalized)
        case .address:
            guard let normalized = normalized(text) else {
                let what = self == .ip ? "an address with its prefix, like 192.0.2.7/24" : "an IP address"
                return .failure(
                    FactValueProblem(message: "'\(text)' is not \(what), as '\(self)' holds", hint: nil))
            }
            return .success(normalized)
        }
    }
}

/// Why a value cannot be a given fact.
public struct FactValueProblem: Error, Hashable, Sendable {
    /// What is wrong, naming the value and the fact.
    public var message: String
    /// A suggestion (the closest allowed word, or how to write the value), when there is one.
    public var hint: String?

    /// Creates a problem report.
    public init(message: String, hint: String?) {
        self.message = message
        self.hint = hint
    }
}

extension FactKey {
    /// Checks a state an observer plugin reports for this built-in fact and writes it as the
    /// built-in observers would: text through ``checkedValue(_:)`` (so `02-AA-BB-00-00-02` becomes
    /// `02:aa:bb:00:00:02` and `nomac` is refused), each element of a list likewise, numbers only
    /// where the fact is one or is free text, `true`/`false` only for free text. Absent and
    /// unknown pass as they are.
    public func checked(_ state: FactState) -> Result<FactState, FactValueProblem> {
        guard case .value(let value) = state else { return .success(state) }
        return checked(value).map(FactState.value)
    }

    private func checked(_ value: FactValue) -> Result<FactValue, FactValueProblem> {
        let freeText = kind == .text && allowedWords == nil
        switch value {
        case .string(let text):
            return checkedValue(text).map(FactValue.string)
        case .bytes:
            guard freeText else { return .failure(notText("text that is not UTF-8")) }
            return .success(value)
        case .number(let number):
            guard number.isFinite, freeText else { return .failure(notText(FactValue.format(number))) }
            return .success(value)
        case .bool(let flag):
            guard freeText, self != .signal, self != .frequency else {
                return .failure(notText(flag ? "true" : "false"))
            }
            return .success(value)
        case .list(let items):
            var checkedItems: [FactValue] = []
            for item in items {
                if case .list = item { return .failure(notText("a list inside a list")) }
                switch checked(item) {
                case .success(let kept): checkedItems.append(kept)
                case .failure(let problem): return .failure(problem)
                }
            }
            return .success(.list(checkedItems))
        }
    }

    private func notText(_ what: String) -> FactValueProblem {
        FactValueProblem(message: "\(what) is not a value '\(self)' can have", hint: nil)
    }
}
