import NetRulesCore

/// Reads one entry of `rules:`.
struct RuleParser {
    var context: ValidationContext
    let registry: Registry
    let namedHosts: [String: HostDefinition]
    /// The places `place:` may name.
    var placeNames: [String] = []
    let findPlugin: @Sendable (String) -> String?
    private(set) var inlineHosts: [String: HostDefinition] = [:]

    init(
        context: ValidationContext, registry: Registry, namedHosts: [String: HostDefinition],
        findPlugin: @escaping @Sendable (String) -> String?
    ) {
        self.context = context
        self.registry = registry
        self.namedHosts = namedHosts
        self.findPlugin = findPlugin
    }

    /// The rule and the mark of its name, or nil after reporting why not.
    mutating func rule(_ node: YAMLNode, at path: KeyPath) -> (Rule, SourceMark)? {
        guard let m = context.mapping(node, path, what: "a rule mapping with 'name:', 'when:' and 'do:'") else {
            return nil
        }
        context.rejectUnknownKeys(m, path, known: RuleLoader.ruleKeys, what: "a rule")
        var ok = true

        var name: String?
        let nameMark = m.entry("name")?.key.mark ?? m.mark
        if let n = m["name"] {
            name = context.text(n, path.key("name"), what: "a rule name")
            if let t = name, t.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                context.error("a rule name cannot contain control characters", at: n.mark, path: path.key("name"))
                name = nil
            }
        } else {
            context.error("the rule has no 'name'", at: m.mark, path: path, hint: "give every rule a unique name")
        }
        if name == nil { ok = false }

        var condition: (any Condition)?
        if let w = m["when"] {
            var parser = ConditionParser(context: context, registry: registry, namedHosts: namedHosts)
            parser.placeNames = placeNames
            condition = parser.condition(w, at: path.key("when"))
            context = parser.context
            inlineHosts.merge(parser.inlineHosts) { a, _ in a }
        } else {
            context.error("the rule has no 'when' condition", at: m.mark, path: path)
        }
        if condition == nil { ok = false }

        var edges: Set<Edge> = [.enter]
        if let on = m["on"] {
            if let words = context.words(on, path.key("on"), oneOf: ["enter", "exit"]) {
                edges = Set(words.compactMap(Edge.init(rawValue:)))
            } else {
                ok = false
            }
        }

        var hold = Duration.zero
        if let f = m["for"] {
            if let d = context.duration(f, path.key("for")) { hold = d } else { ok = false }
        }
        var cooldown = Duration.zero
        if let c = m["cooldown"] {
            if let d = context.duration(c, path.key("cooldown")) { cooldown = d } else { ok = false }
        }
        var oncePer: CalendarPeriod?
        if let o = m["once_per"] {
            if let word = context.word(o, path.key("once_per"), oneOf: ["day", "week"]) {
                oncePer = CalendarPeriod(rawValue: word)
            } else {
                ok = false
            }
        }
        if let d = m["description"], context.text(d, path.key("description")) == nil { ok = false }

        var actions: [ActionSpec]?
        if let d = m["do"] {
            context.ruleName = name
            var parser = ActionParser(context: context, registry: registry, findPlugin: findPlugin)
            actions = parser.actions(d, at: path.key("do"))
            context = parser.context
        } else {
            context.error("the rule has no 'do' list", at: m.mark, path: path, hint: "say what to run, send or write")
        }
        if actions == nil { ok = false }

        guard ok, let name, let condition, let actions else { return nil }
        let rule = Rule(
            name: name, condition: condition, edges: edges, hold: hold, cooldown: cooldown, oncePer: oncePer,
            actions: actions,
            origin: "\(context.file):\(m.mark)", fingerprint: Fingerprint.of(node),
            identity: m["when"].map { Fingerprint.of($0) } ?? "")
        return (rule, nameMark)
    }
}

/// A canonical digest of a YAML subtree (its text, without positions or comments).
enum Fingerprint {
    static func of(_ node: YAMLNode) -> String {
        var digest = Digest()
        digest.walk(node)
        let hex = String(digest.hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// FNV-1a over each piece's UTF-8 bytes, each piece closed by 0xFF. Saved states compare these
    /// digests, so the bytes fed must stay exactly these; they are fed without building strings.
    private struct Digest {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func walk(_ node: YAMLNode) {
            switch node {
            case .scalar(let s):
                piece(s.style == .plain ? UInt8(ascii: "p") : UInt8(ascii: "q"))
                piece(s.text)
            case .sequence(let list):
                piece(UInt8(ascii: "["), count: list.items.count)
                for item in list.items { walk(item) }
            case .mapping(let m):
                piece(UInt8(ascii: "{"), count: m.entries.count)
                for (k, v) in m.entries {
                    piece(k.text)
                    walk(v)
                }
            }
        }

        private mutating func byte(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }

        private mutating func end() { byte(0xFF) }

        private mutating func piece(_ text: String) {
            for b in text.utf8 { byte(b) }
            end()
        }

        private mutating func piece(_ tag: UInt8) {
            byte(tag)
            end()
        }

        /// The tag followed by `count` in decimal, as `"[\(count)"` spells it.
        private mutating func piece(_ tag: UInt8, count: Int) {
            byte(tag)
            var divisor = 1
            while divisor <= count / 10 { divisor *= 10 }
            var rest = count
            while divisor > 0 {
                byte(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
            end()
        }
    }
}
