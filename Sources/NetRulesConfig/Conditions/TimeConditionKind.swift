import NetRulesCore

/// `time: { from: "HH:MM", to: "HH:MM", days: [mon, …] }`: the machine's local time (`TZ`
/// honoured) is inside the window; `to` before `from` wraps past midnight.
struct TimeConditionKind: ConditionKind {
    let key = "time"
    let summary =
        "The local time is inside a daily window: { from: \"07:00\", to: \"11:00\", days: [mon, tue, wed, thu, fri] }."

    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    var schema: JSONValue {
        Schema.object(
            [
                "from": Schema.string("Start of the window, HH:MM or HH:MM:SS, local time (default: 00:00)."),
                "to": Schema.string(
                    "End of the window, excluded (default: 24:00); before 'from' it wraps past midnight."),
                "days": .object([
                    ("description", .string("The days a window starts on (default: every day).")),
                    (
                        "anyOf",
                        .array([
                            Schema.enumeration(Self.dayNames, "A day."),
                            .object([
                                ("type", .string("array")), ("items", Schema.enumeration(Self.dayNames, "A day.")),
                            ]),
                        ])
                    ),
                ]),
            ], required: [], minProperties: 1)
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        guard let m = parser.context.mapping(node, path, what: "'{ from: \"07:00\", to: \"11:00\", days: [mon, …] }'")
        else { return nil }
        parser.context.rejectUnknownKeys(m, path, known: ["from", "to", "days"], what: "a time condition")
        if m.entries.isEmpty {
            parser.context.error("a time condition needs 'from', 'to' or 'days'", at: m.mark, path: path)
            return nil
        }
        var ok = true
        func clock(_ name: String, default value: Int64) -> Int64 {
            guard let n = m[name] else { return value }
            guard let text = parser.context.text(n, path.key(name), what: "a time such as \"07:30\""),
                let seconds = Self.secondsOfDay(text, allowing24: name == "to")
            else {
                parser.context.error(
                    "'\(n.scalar?.text ?? "")' is not a time of day", at: n.mark, path: path.key(name),
                    hint: "write it as HH:MM or HH:MM:SS, 24-hour, in quotes: \"07:30\"")
                ok = false
                return value
            }
            return seconds
        }
        let from = clock("from", default: 0)
        let to = clock("to", default: 86_400)
        var days = Set(0..<7)
        if let d = m["days"] {
            if let words = parser.context.words(d, path.key("days"), oneOf: Self.dayNames) {
                days = Set(words.compactMap { Self.dayNames.firstIndex(of: $0) })
            } else {
                ok = false
            }
        }
        guard ok else { return nil }
        var parts: [String] = []
        if m["from"] != nil || m["to"] != nil { parts.append("\(Self.format(from))–\(Self.format(to))") }
        if days.count < 7 { parts.append(days.sorted().map { Self.dayNames[$0] }.joined(separator: ",")) }
        return TimeCondition(from: from, to: to, days: days, spelling: parts.joined(separator: " "))
    }

    /// `HH:MM` or `HH:MM:SS` as seconds after midnight; `24:00` only where it means the end of the day.
    static func secondsOfDay(_ text: String, allowing24: Bool) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int64(parts[0]), let minutes = Int64(parts[1])
        else { return nil }
        let seconds = parts.count == 3 ? Int64(parts[2]) : 0
        guard let seconds, minutes < 60, seconds < 60 else { return nil }
        if hours == 24 && minutes == 0 && seconds == 0 && allowing24 { return 86_400 }
        guard hours < 24 else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }

    static func format(_ seconds: Int64) -> String {
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let base = "\(two(seconds / 3600)):\(two(seconds / 60 % 60))"
        return seconds % 60 == 0 ? base : base + ":\(two(seconds % 60))"
    }
}
