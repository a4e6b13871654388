import NetRulesCore

/// The "did you mean" for a rule name no loaded rule (or history entry) has.
///
/// A near spelling of the whole name comes first (`EditDistance.closest`); failing that, a name
/// that starts with what was typed, or with a near spelling of it, so that `ofice` finds
/// `office-check-in`. A prefix needs three characters, and at most one edit under six (two from
/// six on), so that a short word is not "corrected" into an unrelated name.
enum RuleNameSuggestion {
    /// The name to suggest for `typed` among `names` (in the order to prefer on a tie), or nil.
    static func closest(to typed: String, among names: [String]) -> String? {
        if let whole = EditDistance.closest(to: typed, among: names) { return whole }
        let length = typed.count
        guard length >= 3 else { return nil }
        let limit = length >= 6 ? 2 : 1
        let scored = names.compactMap { name -> (String, Int)? in
            let (shortest, longest) = (max(1, length - limit), min(name.count, length + limit))
            guard shortest <= longest else { return nil }
            let best = (shortest...longest).map { EditDistance.between(typed, String(name.prefix($0))) }.min() ?? .max
            return best <= limit ? (name, best) : nil
        }
        return scored.min { $0.1 < $1.1 }?.0
    }
}
