/// The NFA states alive at one position of the text, as a sparse set (Briggs and Torczon).
///
/// Insertion and membership are O(1) and clearing is O(1), which is what keeps a match step linear in
/// the program size: every state enters at most once per position, however many paths lead to it.
struct RegexThreadSet {
    /// The members in insertion order, in `dense[0..<count]`.
    private var dense: [Int]
    /// For a member `pc`, its index in `dense`; stale values are harmless because `contains`
    /// checks them against `dense`.
    private var sparse: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        dense = Array(repeating: 0, count: capacity)
        sparse = Array(repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    subscript(position: Int) -> Int { dense[position] }

    func contains(_ pc: Int) -> Bool {
        let position = sparse[pc]
        return position < count && dense[position] == pc
    }

    /// Adds `pc`; `false` if it was already there.
    mutating func insert(_ pc: Int) -> Bool {
        if contains(pc) { return false }
        dense[count] = pc
        sparse[pc] = count
        count += 1
        return true
    }

    mutating func removeAll() {
        count = 0
    }
}
