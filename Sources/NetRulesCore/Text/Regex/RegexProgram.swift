/// A compiled pattern: a Thompson NFA laid out as instructions, built once when a rule loads.
///
/// Each instruction is one NFA state. Consuming states (`scalar`, `scalarClass`) step over one scalar
/// of the text; the others move between states without consuming. `RegexMatcher` runs every state
/// that is alive at a position together, so no instruction is ever tried twice at one position.
struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        /// Consume exactly this scalar, then go on to the next instruction.
        case scalar(Unicode.Scalar)
        /// Consume a scalar in `classes[index]`, then go on to the next instruction.
        case scalarClass(index: Int)
        /// Continue at both targets.
        case split(Int, Int)
        case jump(Int)
        /// Continue at the next instruction if the assertion holds here.
        case assertion(RegexAssertion)
        /// A match ends here.
        case match
    }

    /// The cap on instructions: repetitions copy their operand (`(a{100}){100}` is 10,000 copies),
    /// and matching costs up to one visit of every instruction for each scalar of the text.
    static let maximumSize = 10_000

    /// Execution starts at instruction 0.
    var instructions: [Instruction]
    var classes: [ScalarClass]
    /// The pattern begins with `^`, so a match can only start at the start of the text.
    var anchoredAtStart: Bool
}
