extension String {
    /// The Levenshtein distance to `other`, counted in characters.
    ///
    /// Used for "Did you mean …?" suggestions, which swift-argument-parser offers when the distance is below 4.
    ///
    /// - Parameter other: The string to compare with.
    /// - Returns: The least number of single-character insertions, deletions and substitutions turning one string
    ///   into the other.
    func editDistance(to other: String) -> Int {
        let source = Array(self)
        let target = Array(other)
        if source.isEmpty || target.isEmpty {
            return Swift.max(source.count, target.count)
        }
        // Two rows of the dynamic-programming matrix are enough, and option names are short.
        var previous = Array(0...target.count)
        var current = [Int](repeating: 0, count: target.count + 1)
        for i in 1...source.count {
            current[0] = i
            for j in 1...target.count {
                if source[i - 1] == target[j - 1] {
                    current[j] = previous[j - 1]
                } else {
                    current[j] = Swift.min(previous[j], current[j - 1], previous[j - 1]) + 1
                }
            }
            swap(&previous, &current)
        }
        return previous[target.count]
    }

    /// The candidate closest to this string, if it is close enough to be worth suggesting.
    ///
    /// "Close enough" is an edit distance below 4, swift-argument-parser's empirically chosen floor. On a tie the
    /// earliest candidate wins, so suggestions follow declaration order and stay stable.
    ///
    /// - Parameter candidates: The spellings that would have been valid, in declaration order.
    /// - Returns: The closest candidate, or `nil` if none is close enough.
    func closestMatch(in candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(to: candidate)
            if distance < 4, distance < best?.distance ?? Int.max {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }
}
