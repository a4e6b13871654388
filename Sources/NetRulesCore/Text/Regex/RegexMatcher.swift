/// Runs a `RegexProgram` over a text: a Pike VM without captures, that is, Thompson's simulation of
/// all NFA states at once.
///
/// The text is read once, left to right. At each position the matcher holds the set of states alive
/// there; each live consuming state that accepts the scalar adds its successor, with everything
/// reachable from it without consuming, to the set for the next position. A state joins a set at most
/// once, so a position costs O(program size) and a whole search O(program size × text length), whatever
/// the pattern. A backtracker instead retries the same state at the same position along every path
/// that leads there, which is exponential for `^(a+)+$`.
///
/// Only whether a match exists is asked, so the matcher keeps no capture positions and no thread
/// priorities, and it stops at the first `match` state reached.
struct RegexMatcher {
    let program: RegexProgram

    /// Whether the program matches anywhere in `text` (search, like `grep`).
    func matches(_ text: String) -> Bool {
        let size = program.instructions.count
        var current = RegexThreadSet(capacity: size)
        var next = RegexThreadSet(capacity: size)
        // One work list for every `follow` of this search, so following states does not allocate.
        var pending: [Int] = []
        pending.reserveCapacity(size)

        var scalars = text.unicodeScalars.makeIterator()
        var previous: Unicode.Scalar? = nil
        var here = scalars.next()
        var atStart = true
        while true {
            // Unanchored search: a new match attempt starts at every position. Doing it inside the one
            // pass, instead of restarting per position, is what keeps the search linear.
            if atStart || !program.anchoredAtStart {
                if follow(from: 0, into: &current, pending: &pending, after: previous, before: here) { return true }
            }
            atStart = false
            guard let scalar = here, !(current.isEmpty && program.anchoredAtStart) else { return false }
            let following = scalars.next()
            for position in 0..<current.count {
                let pc = current[position]
                let accepts: Bool
                switch program.instructions[pc] {
                case .scalar(let expected): accepts = scalar == expected
                case .scalarClass(let index): accepts = program.classes[index].contains(scalar)
                case .split, .jump, .assertion, .match: accepts = false
                }
                if accepts, follow(from: pc + 1, into: &next, pending: &pending, after: scalar, before: following) {
                    return true
                }
            }
            swap(&current, &next)
            next.removeAll()
            previous = scalar
            here = following
        }
    }

    /// Adds `start` and every state reachable from it without consuming to `set`, evaluating assertions
    /// between `previous` and `next`. Returns `true` as soon as a `match` state is reached.
    private func follow(
        from start: Int,
        into set: inout RegexThreadSet,
        pending: inout [Int],
        after previous: Unicode.Scalar?,
        before next: Unicode.Scalar?
    ) -> Bool {
        pending.append(start)
        while let pc = pending.popLast() {
            guard set.insert(pc) else { continue }
            switch program.instructions[pc] {
            case .match:
                pending.removeAll(keepingCapacity: true)
                return true
            case .jump(let target):
                pending.append(target)
            case .split(let first, let second):
                pending.append(second)
                pending.append(first)
            case .assertion(let assertion):
                if assertion.holds(after: previous, before: next) { pending.append(pc + 1) }
            case .scalar, .scalarClass:
                break
            }
        }
        return false
    }
}
