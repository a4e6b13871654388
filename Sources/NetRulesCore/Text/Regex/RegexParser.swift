/// Reads a pattern into a `RegexNode` tree, refusing what a linear-time matcher cannot do.
///
/// The dialect is the subset of PCRE and POSIX ERE that people write for network names. Anything
/// outside it is an error with a position, never a guess: a construct another engine reads
/// differently (`[[:alpha:]]`, `a{,3}`, `[a&&b]`) would otherwise match something the user did not
/// mean, and backreferences or lookaround would need backtracking, the very thing this engine exists
/// to avoid.
struct RegexParser {
    /// The parsed tree and the one flag the dialect has.
    struct Result {
        var root: RegexNode
        /// The pattern began with `(?i)`.
        var caseInsensitive: Bool
    }

    /// The largest count a `{n,m}` may name; bigger ones are almost always a typo, and they multiply.
    static let maximumRepetition = 1000
    /// Groups may nest this deep; the parser and compiler recurse once per level.
    static let maximumNesting = 100

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var nesting = 0

    private init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    static func parse(_ source: String) throws(RegexSyntaxError) -> Result {
        var parser = RegexParser(source)
        let caseInsensitive = parser.skip("(?i)")
        let root = try parser.alternation()
        if parser.index < parser.scalars.count {
            // `alternation` stops only at the end or at a `)` it did not open.
            throw parser.error("unmatched ')'")
        }
        return Result(root: root, caseInsensitive: caseInsensitive)
    }

    // MARK: Structure

    private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        var alternatives = [try concatenation()]
        while skip("|") { alternatives.append(try concatenation()) }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func concatenation() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = peek(), scalar != "|", scalar != ")" {
            let start = index
            let atom = try self.atom()
            items.append(try quantified(atom, at: start))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
        let start = index
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case "(": return try group(openedAt: start)
        case "[": return .scalarClass(try bracketClass(openedAt: start))
        case ".": return .scalarClass(.anyButNewline)
        case "^": return .assertion(.startOfText)
        case "$": return .assertion(.endOfText)
        case "\\": return try escape(at: start)
        case "*", "+", "?": throw error("'\(scalar)' has nothing to repeat", at: start)
        case "{":
            throw error("'{' has nothing to repeat (write '\\{' for a literal brace)", at: start)
        default: return .literal(scalar)
        }
    }

    private mutating func group(openedAt start: Int) throws(RegexSyntaxError) -> RegexNode {
        if skip("?") { try groupKind(openedAt: start) }
        guard nesting < Self.maximumNesting else {
            throw error("groups are nested more than \(Self.maximumNesting) deep", at: start)
        }
        nesting += 1
        let inner = try alternation()
        nesting -= 1
        guard skip(")") else { throw error("expected ')'") }
        return inner
    }

    /// After `(?`: accepts the forms that only group (`(?:`, named groups) and refuses the rest by name.
    private mutating func groupKind(openedAt start: Int) throws(RegexSyntaxError) {
        if skip(":") { return }
        if skip("<=") || skip("<!") {
            throw error("lookbehind '(?<=' and '(?<!' is not supported", at: start)
        }
        if skip("=") || skip("!") { throw error("lookahead '(?=' and '(?!' is not supported", at: start) }
        if skip(">") { throw error("atomic groups '(?>' are not supported", at: start) }
        if skip("P=") || skip("P>") {
            throw error("backreferences and recursion '(?P=…)' are not supported", at: start)
        }
        if skip("<") || skip("P<") {
            try groupName(openedAt: start)
            return
        }
        if skip("i)") {
            throw error("'(?i)' is only supported at the very start of the pattern", at: start)
        }
        if let next = peek(), next == "-" || next.properties.isAlphabetic {
            throw error("only the flag '(?i)', at the start of the pattern, is supported", at: start)
        }
        throw error("unsupported group syntax '(?\(peek().map(String.init) ?? "")'", at: start)
    }

    private mutating func groupName(openedAt start: Int) throws(RegexSyntaxError) {
        var length = 0
        while let scalar = peek(),
            scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || (length > 0 && ("0"..."9").contains(scalar))
        {
            index += 1
            length += 1
        }
        guard length > 0, skip(">") else {
            throw error("a group name must be letters, digits and '_', closed by '>'", at: start)
        }
    }

    // MARK: Quantifiers

    private mutating func quantified(_ atom: RegexNode, at start: Int) throws(RegexSyntaxError) -> RegexNode {
        let quantifierStart = index
        guard let (minimum, maximum) = try quantifier() else { return atom }
        if case .assertion = atom {
            throw error("an anchor such as '^', '$' or '\\b' cannot be repeated", at: quantifierStart)
        }
        // Lazy forms only change which match a backtracker reports first; whether one exists is the same.
        _ = skip("?")
        if skip("+") {
            throw error("possessive quantifiers (such as '*+') are not supported", at: quantifierStart)
        }
        if let next = peek(), next == "*" || next == "+" || next == "?" || next == "{" {
            throw error("a quantifier cannot follow another; put the first in a group '(?:…)'", at: index)
        }
        return .repetition(atom, minimum: minimum, maximum: maximum)
    }

    /// `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}` as `(minimum, maximum)`; `nil` when none follows.
    private mutating func quantifier() throws(RegexSyntaxError) -> (Int, Int?)? {
        if skip("*") { return (0, nil) }
        if skip("+") { return (1, nil) }
        if skip("?") { return (0, 1) }
        let start = index
        guard skip("{") else { return nil }
        guard let minimum = try count() else {
            // `{,n}` means {0,n} to some engines and a literal to others: say so rather than pick one.
            throw error(
                "'{' must start a repetition such as {3}, {2,} or {2,5} (write '\\{' for a literal brace)", at: start)
        }
        var maximum: Int? = minimum
        if skip(",") { maximum = try count() }
        guard skip("}") else { throw error("expected '}' to end the repetition") }
        if let maximum, maximum < minimum {
            throw error("the repetition {\(minimum),\(maximum)} has its minimum above its maximum", at: start)
        }
        return (minimum, maximum)
    }

    private mutating func count() throws(RegexSyntaxError) -> Int? {
        let start = index
        var value = 0
        while let scalar = peek(), ("0"..."9").contains(scalar) {
            // Saturate instead of overflowing; anything past the maximum is refused below anyway.
            value = min(value * 10 + Int(scalar.value - 0x30), Self.maximumRepetition + 1)
            index += 1
        }
        guard index > start else { return nil }
        guard value <= Self.maximumRepetition else {
            throw error("a repetition count may be at most \(Self.maximumRepetition)", at: start)
        }
        return value
    }

    // MARK: Escapes

    /// After a `\` outside brackets.
    private mutating func escape(at start: Int) throws(RegexSyntaxError) -> RegexNode {
        guard let scalar = next() else { throw error("the pattern ends with a lone '\\'") }
        switch scalar {
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.startOfText)
        case "z": return .assertion(.endOfText)
        default:
            switch try classEscape(scalar, at: start) {
            case .scalar(let literal): return .literal(literal)
            case .property(let property, let negated): return .scalarClass(ScalarClass(property, negated: negated))
            }
        }
    }

    /// What an escape means inside or outside brackets.
    private enum ClassEscape {
        case scalar(Unicode.Scalar)
        case property(ScalarClass.Property, negated: Bool)
    }

    /// After a `\` whose letter has already been read, for the escapes brackets and the outside share.
    private mutating func classEscape(_ scalar: Unicode.Scalar, at start: Int) throws(RegexSyntaxError) -> ClassEscape {
        switch scalar {
        case "d": return .property(.digit, negated: false)
        case "D": return .property(.digit, negated: true)
        case "w": return .property(.word, negated: false)
        case "W": return .property(.word, negated: true)
        case "s": return .property(.whitespace, negated: false)
        case "S": return .property(.whitespace, negated: true)
        case "t": return .scalar("\t")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        case "v": return .scalar("\u{0B}")
        case "x": return .scalar(try hexEscape(at: start, digits: 2))
        case "u": return .scalar(try hexEscape(at: start, digits: 4))
        case "1"..."9", "k", "g":
            throw error("backreferences like '\\\(scalar)' are not supported", at: start)
        case "p", "P": throw error("Unicode property classes '\\\(scalar){…}' are not supported", at: start)
        case "Q": throw error("quoting with '\\Q…\\E' is not supported; put '\\' before each symbol", at: start)
        default:
            // Any ASCII symbol may be escaped to mean itself; letters and digits are reserved, since
            // other engines give most of them a meaning this one does not have.
            guard scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else {
                throw error("unknown escape '\\\(scalar)'", at: start)
            }
            return .scalar(scalar)
        }
    }

    /// `\xhh`, `\uhhhh`, or either with braces around 1–6 hex digits (`\x{1F600}`).
    private mutating func hexEscape(at start: Int, digits: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        let braced = skip("{")
        var value: UInt32 = 0
        var length = 0
        while length < (braced ? 6 : digits), let scalar = peek(), let digit = Self.hexValue(scalar) {
            value = value * 16 + digit
            length += 1
            index += 1
        }
        let complete = braced ? length > 0 && skip("}") : length == digits
        guard complete, let scalar = Unicode.Scalar(value) else {
            let form = digits == 2 ? "\\xhh" : "\\uhhhh"
            throw error("expected a Unicode scalar in hex, as '\(form)' or '\\\(scalars[start + 1]){hex}'", at: start)
        }
        return scalar
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": return scalar.value - 0x30
        case "a"..."f": return scalar.value - 0x61 + 10
        case "A"..."F": return scalar.value - 0x41 + 10
        default: return nil
        }
    }

    // MARK: Brackets

    /// After `[`: ranges, single scalars and `\d`-style escapes, up to the closing `]`.
    private mutating func bracketClass(openedAt start: Int) throws(RegexSyntaxError) -> ScalarClass {
        let negated = skip("^")
        if peek() == "]" {
            throw error("a class cannot be empty (write '\\]' for a literal ']')", at: start)
        }
        var ranges: [ClosedRange<UInt32>] = []
        var properties: [(property: ScalarClass.Property, negated: Bool)] = []
        while !skip("]") {
            let itemStart = index
            switch try classItem() {
            case .property(let property, let negatedProperty):
                if peek() == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    throw error(
                        "a range cannot start with a class such as '\\d' (write '\\-' for a literal '-')", at: index)
                }
                properties.append((property, negatedProperty))
            case .scalar(let low):
                guard peek() == "-", index + 1 < scalars.count, scalars[index + 1] != "]" else {
                    ranges.append(low.value...low.value)
                    continue
                }
                if scalars[index + 1] == "-" {
                    throw error("'--' inside brackets is set syntax to some engines; escape one of them", at: index)
                }
                index += 1
                guard case .scalar(let high) = try classItem() else {
                    throw error("a range cannot end with a class such as '\\d'", at: itemStart)
                }
                guard low <= high else {
                    throw error("the range '\(low)-\(high)' is out of order", at: itemStart)
                }
                ranges.append(low.value...high.value)
            }
        }
        return ScalarClass(ranges: ranges, properties: properties, negated: negated)
    }

    /// One scalar or escape inside brackets, refusing the spellings other engines read as set syntax.
    private mutating func classItem() throws(RegexSyntaxError) -> ClassEscape {
        let start = index
        guard let scalar = next() else { throw error("expected ']'") }
        switch scalar {
        case "\\":
            guard let escaped = next() else { throw error("the pattern ends with a lone '\\'") }
            if escaped == "b" {
                throw error("'\\b' inside brackets is not supported (it is a backspace to some engines)", at: start)
            }
            return try classEscape(escaped, at: start)
        case "[":
            if peek() == ":" {
                throw error(
                    "POSIX classes such as '[:alpha:]' are not supported; use \\w, \\d, \\s or a range", at: start)
            }
            throw error("write '\\[' for a literal '[' inside brackets (nested classes are not supported)", at: start)
        case "&", "-", "~":
            // `[a&&b]`, `[a--b]`, `[a~~b]` are intersection, difference and symmetric difference to ICU,
            // Java and Swift's own Regex, yet plain characters to PCRE.
            guard peek() != scalar else {
                throw error(
                    "'\(scalar)\(scalar)' inside brackets is set syntax to some engines; escape one of them", at: start)
            }
            return .scalar(scalar)
        default:
            return .scalar(scalar)
        }
    }

    // MARK: Reading

    private func peek() -> Unicode.Scalar? {
        index < scalars.count ? scalars[index] : nil
    }

    private mutating func next() -> Unicode.Scalar? {
        guard index < scalars.count else { return nil }
        defer { index += 1 }
        return scalars[index]
    }

    /// Consumes `text` if the pattern continues with it.
    private mutating func skip(_ text: String) -> Bool {
        var position = index
        for scalar in text.unicodeScalars {
            guard position < scalars.count, scalars[position] == scalar else { return false }
            position += 1
        }
        index = position
        return true
    }

    /// A problem at `offset`, or where the parser stands; at the end of the pattern there is no offset
    /// to give (see `RegexSyntaxError.offset`).
    private func error(_ message: String, at offset: Int? = nil) -> RegexSyntaxError {
        let offset = offset ?? index
        return RegexSyntaxError(message: message, offset: offset < scalars.count ? offset : nil)
    }
}
