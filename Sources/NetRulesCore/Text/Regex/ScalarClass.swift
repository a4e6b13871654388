/// A set of Unicode scalars that one step of a match may consume: `[^a-z\d]`, `.`, `\w`.
///
/// Ranges are kept sorted and merged so membership is a binary search. `\d`, `\w` and `\s` stay as
/// Unicode properties rather than ranges: listing every digit and letter Unicode knows would make each
/// pattern that uses them large.
struct ScalarClass: Sendable {
    /// The Unicode-aware classes behind `\d`, `\w` and `\s` (and their negations).
    enum Property: Sendable {
        /// General category Nd, so `\d` matches Arabic-Indic digits as the previous engine did.
        case digit
        /// UTS #18's word characters: letters, marks, decimal digits, connector punctuation (`_`).
        case word
        /// The White_Space property: space, tab, line breaks, no-break space …
        case whitespace

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            // ASCII answers without consulting the Unicode tables, which covers almost every SSID.
            if scalar.isASCII {
                let v = scalar.value
                switch self {
                case .digit: return (0x30...0x39).contains(v)
                case .word:
                    return (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v)
                        || v == 0x5F
                case .whitespace: return v == 0x20 || (0x09...0x0D).contains(v)
                }
            }
            let properties = scalar.properties
            switch self {
            case .digit: return properties.generalCategory == .decimalNumber
            case .word:
                switch properties.generalCategory {
                case .decimalNumber, .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation:
                    return true
                default: return properties.isAlphabetic || properties.isJoinControl
                }
            case .whitespace: return properties.isWhitespace
            }
        }
    }

    /// Sorted, non-overlapping, non-adjacent ranges of scalar values.
    private(set) var ranges: [ClosedRange<UInt32>]
    /// `(property, negated)`: `\W` inside `[…]` is `(.word, true)`.
    private(set) var properties: [(property: Property, negated: Bool)]
    /// `[^…]`: the class matches what its ranges and properties do not.
    var negated: Bool
    /// Under `(?i)`: a text scalar matches when any of its case variants is in the set.
    var foldsCase = false

    init(
        ranges: [ClosedRange<UInt32>] = [], properties: [(property: Property, negated: Bool)] = [],
        negated: Bool = false
    ) {
        self.ranges = Self.normalized(ranges)
        self.properties = properties
        self.negated = negated
    }

    /// `.`: any scalar but a newline.
    static let anyButNewline = ScalarClass(ranges: [0x0A...0x0A], negated: true)

    /// `\d`, `\W` …, outside brackets.
    init(_ property: Property, negated: Bool) {
        self.init(properties: [(property, negated)])
    }

    /// Whether one scalar of the text is in the class.
    func contains(_ scalar: Unicode.Scalar) -> Bool {
        guard foldsCase else { return containsExactly(scalar) != negated }
        return CaseVariants(of: scalar).contains(where: containsExactly) != negated
    }

    private func containsExactly(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < v {
                low = mid + 1
            } else {
                high = mid
            }
        }
        if low < ranges.count && ranges[low].contains(v) { return true }
        return properties.contains { $0.property.contains(scalar) != $0.negated }
    }

    private static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
