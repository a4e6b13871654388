/// Levenshtein distance, for "did you mean" suggestions.
public enum EditDistance {
    /// The number of single-character edits that turn `a` into `b`.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate closest to `word`, when it is within three edits (as argument-parser suggests).
    ///
    /// On a tie the earliest candidate wins, so suggestions follow declaration order and stay stable.
    ///
    /// - Parameters:
    ///   - word: What the user wrote.
    ///   - candidates: The spellings that would have been valid, in declaration order.
    ///   - limitedByLength: Whether a candidate must also be fewer edits away than `word` has characters
    ///     (counting at least 2), so that a short word is not "corrected" into an unrelated one. The
    ///     command-line parser passes false, because argument-parser's only limit is the three edits.
    /// - Returns: The closest candidate, or nil if none is close enough.
    public static func closest(to word: String, among candidates: [String], limitedByLength: Bool = true) -> String? {
        let limit = limitedByLength ? min(4, max(word.count, 2)) : 4
        let scored = candidates.map { ($0, between(word, $0)) }.filter { $0.1 < limit }
        return scored.min { $0.1 < $1.1 }?.0
    }
}
