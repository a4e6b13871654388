extension FactState {
    /// A fact's state from its JSON, as observer plugins write it and the daemon's `status` answers:
    /// `null` is known absent, strings are text (`\udcXX` escapes as the bytes they stand for),
    /// numbers, `true`/`false`, and arrays of those are lists.
    ///
    /// Nil for what no fact holds: an object, or a list with an object, a list or `null` in it.
    package init?(json value: JSONValue) {
        if case .null = value {
            self = .absent
            return
        }
        guard let fact = FactValue(json: value) else { return nil }
        self = .value(fact)
    }
}

extension FactValue {
    /// A fact value from its JSON (see `FactState.init(json:)`); nil for `null` and objects.
    package init?(json value: JSONValue) {
        switch value {
        case .null, .object: return nil
        case .bool(let b): self = .bool(b)
        case .number, .literal:
            guard let number = value.numberValue else { return nil }
            self = .number(number)
        case .string(let s): self = .string(s)
        case .bytes(let b): self = .bytes(b)
        case .array(let items):
            // A list holds scalars: a nested list or an object in it is refused.
            var values: [FactValue] = []
            for item in items {
                if case .array = item { return nil }
                guard let element = FactValue(json: item) else { return nil }
                values.append(element)
            }
            self = .list(values)
        }
    }
}
