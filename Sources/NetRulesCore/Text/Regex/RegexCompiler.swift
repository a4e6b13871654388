/// Lowers a `RegexNode` tree to a `RegexProgram`, the textbook Thompson construction.
///
/// Bounded repetitions have no counter in an NFA: `e{2,4}` becomes `e e e? e?`. The size is computed
/// before anything is emitted, so a pattern that would expand past `RegexProgram.maximumSize` is
/// refused without building it (nested counts multiply: `((a{1000}){1000}){1000}` is 10⁹ copies).
struct RegexCompiler {
    private var instructions: [RegexProgram.Instruction] = []
    private var classes: [ScalarClass] = []
    private let caseInsensitive: Bool

    private init(caseInsensitive: Bool) {
        self.caseInsensitive = caseInsensitive
    }

    static func compile(_ parsed: RegexParser.Result) throws(RegexSyntaxError) -> RegexProgram {
        // One more for the final `match`.
        guard size(of: parsed.root) < RegexProgram.maximumSize else {
            throw RegexSyntaxError(
                message: "the pattern is too large: it expands to more than \(RegexProgram.maximumSize) steps "
                    + "(repetition counts multiply; use smaller ones)",
                offset: nil
            )
        }
        var compiler = RegexCompiler(caseInsensitive: parsed.caseInsensitive)
        compiler.emit(parsed.root)
        compiler.instructions.append(.match)
        return RegexProgram(
            instructions: compiler.instructions,
            classes: compiler.classes,
            anchoredAtStart: startsWithStartOfText(parsed.root)
        )
    }

    // MARK: Size

    /// The instructions `emit` appends for `node`, saturating just past the maximum so nested counts
    /// cannot overflow.
    private static func size(of node: RegexNode) -> Int {
        let cap = RegexProgram.maximumSize + 1
        func sum(_ values: [Int]) -> Int { values.reduce(0) { min($0 + $1, cap) } }
        func times(_ value: Int, _ count: Int) -> Int { min(value * count, cap) }
        switch node {
        case .empty: return 0
        case .literal, .scalarClass, .assertion: return 1
        case .concatenation(let items): return sum(items.map(size))
        case .alternation(let alternatives):
            // A split and a jump around every alternative but the last.
            return sum(alternatives.map(size) + [times(2, alternatives.count - 1)])
        case .repetition(let operand, let minimum, let maximum):
            let one = size(of: operand)
            if one == 0 { return 0 }
            guard let maximum else {
                // `e*` is split, e, jump; `e{n,}` is n−1 copies and `e+` (e, split).
                return minimum == 0 ? min(one + 2, cap) : sum([times(one, minimum - 1), one + 1])
            }
            // n copies, then m−n optional copies (split, e).
            return sum([times(one, minimum), times(one + 1, maximum - minimum)])
        }
    }

    // MARK: Emission

    private mutating func emit(_ node: RegexNode) {
        switch node {
        case .empty:
            break
        case .literal(let scalar):
            guard caseInsensitive else {
                instructions.append(.scalar(scalar))
                return
            }
            let variants = CaseVariants(of: scalar).all
            guard variants.count > 1 else {
                instructions.append(.scalar(scalar))
                return
            }
            var folded = ScalarClass(ranges: variants.map { $0.value...$0.value })
            folded.foldsCase = true
            emitClass(folded)
        case .scalarClass(var scalarClass):
            scalarClass.foldsCase = caseInsensitive
            emitClass(scalarClass)
        case .assertion(let assertion):
            instructions.append(.assertion(assertion))
        case .concatenation(let items):
            for item in items { emit(item) }
        case .alternation(let alternatives):
            var jumpsToEnd: [Int] = []
            for alternative in alternatives.dropLast() {
                let split = placeholder()
                emit(alternative)
                jumpsToEnd.append(placeholder())
                instructions[split] = .split(split + 1, instructions.count)
            }
            emit(alternatives[alternatives.count - 1])
            for jump in jumpsToEnd { instructions[jump] = .jump(instructions.count) }
        case .repetition(let operand, let minimum, let maximum):
            emitRepetition(operand, minimum: minimum, maximum: maximum)
        }
    }

    private mutating func emitRepetition(_ operand: RegexNode, minimum: Int, maximum: Int?) {
        // An operand that consumes and asserts nothing repeats to nothing (and `size` counted it so).
        if Self.size(of: operand) == 0 { return }
        guard let maximum else {
            if minimum == 0 {
                let split = placeholder()
                emit(operand)
                instructions.append(.jump(split))
                instructions[split] = .split(split + 1, instructions.count)
            } else {
                for _ in 0..<(minimum - 1) { emit(operand) }
                let start = instructions.count
                emit(operand)
                instructions.append(.split(start, instructions.count + 1))
            }
            return
        }
        for _ in 0..<minimum { emit(operand) }
        // `e?e?` matches the same texts as the nested `(e(e)?)?` and is simpler to lay out; only a
        // backtracker would care about the difference.
        for _ in 0..<(maximum - minimum) {
            let split = placeholder()
            emit(operand)
            instructions[split] = .split(split + 1, instructions.count)
        }
    }

    private mutating func emitClass(_ scalarClass: ScalarClass) {
        instructions.append(.scalarClass(index: classes.count))
        classes.append(scalarClass)
    }

    /// Reserves an instruction whose target is only known once what follows it has been emitted.
    private mutating func placeholder() -> Int {
        instructions.append(.match)
        return instructions.count - 1
    }

    private static func startsWithStartOfText(_ node: RegexNode) -> Bool {
        switch node {
        case .assertion(.startOfText): return true
        case .concatenation(let items): return items.first.map(startsWithStartOfText) ?? false
        default: return false
        }
    }
}
