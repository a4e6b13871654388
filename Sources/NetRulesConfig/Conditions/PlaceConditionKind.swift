import NetRulesCore

/// `place: NAME` or `place: { name: NAME, is: here | claimed | away }`, for the places of `places:`.
struct PlaceConditionKind: ConditionKind {
    let key = "place"
    let summary =
        "The place NAME of 'places:' is here: its condition holds and its proofs passed (or, with 'is:', claimed or away)."

    var schema: JSONValue {
        Schema.anyOf([
            Schema.string("A place's name: true while it is here."),
            Schema.object(
                [
                    "name": Schema.string("A place's name."),
                    "is": Schema.enumeration(
                        PlaceStatus.allCases.map(\.rawValue), "The status to test (default: here)."),
                ], required: ["name"]),
        ])
    }

    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)? {
        if parser.readingPlace {
            parser.context.error(
                "a place's condition cannot read 'place'", at: node.mark, path: path,
                hint: "a place is defined by the network's facts; combine places in a rule's 'when:'")
            return nil
        }
        var nameNode = node
        var status = PlaceStatus.here
        var namePath = path
        if let m = node.mapping {
            parser.context.rejectUnknownKeys(m, path, known: ["name", "is"], what: "a place condition")
            guard let n = m["name"] else {
                parser.context.error("a place condition needs 'name'", at: m.mark, path: path)
                return nil
            }
            nameNode = n
            namePath = path.key("name")
            if let i = m["is"] {
                guard let word = parser.context.word(i, path.key("is"), oneOf: PlaceStatus.allCases.map(\.rawValue)),
                    let read = PlaceStatus(rawValue: word)
                else { return nil }
                status = read
            }
        }
        guard let name = parser.context.text(nameNode, namePath, what: "a place's name or '{ name: NAME, is: here }'")
        else { return nil }
        guard parser.placeNames.contains(name) else {
            let hint =
                EditDistance.closest(to: name, among: parser.placeNames).map { "did you mean '\($0)'?" }
                ?? (parser.placeNames.isEmpty
                    ? "define it under the top-level 'places:'"
                    : "places defined: \(parser.placeNames.joined(separator: ", "))")
            parser.context.error(
                "no place named '\(name)' under 'places:'", at: nameNode.mark, path: namePath, hint: hint)
            return nil
        }
        return PlaceCondition(name: name, is: status)
    }
}
