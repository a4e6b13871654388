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
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, between(word, $0)) }.filter { $0.1 < 4 && $0.1 < max(word.count, 2) }
        return scored.min { $0.1 < $1.1 }?.0
    }
}
