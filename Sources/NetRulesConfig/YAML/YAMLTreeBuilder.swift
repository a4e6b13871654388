import NetRulesCore

/// Builds the untyped tree from libyaml events and reports what rule files do not allow.
///
/// It is a recursive descent over the event stream: each container collects its children in a local array that
/// becomes the node, so nothing is copied twice. ``maximumDepth`` bounds the recursion, and with it the recursive
/// destruction of the tree, far below what a thread's stack can take.
struct YAMLTreeBuilder {
    /// Deeper than any sensible rule file, and shallow enough for the smallest thread stacks.
    static let maximumDepth = 256

    let file: String

    /// Problems found so far, in the order they were found.
    private(set) var diagnostics: [Diagnostic] = []

    /// Where the builder is, for the key paths of diagnostics: one component per open container.
    private var path: [PathComponent] = []

    private enum PathComponent {
        /// Reading the value of this key.
        case key(String)

        /// Reading the item at this index.
        case index(Int)

        /// Reading a key, which has no path of its own.
        case mappingKey
    }

    /// Why building stopped early.
    private enum Failure: Error {
        /// libyaml found a syntax or encoding error.
        case libyaml(LibYAMLError)

        /// The file nests deeper than ``maximumDepth``; already reported.
        case tooDeep
    }

    init(file: String) {
        self.file = file
    }

    /// Reads the stream's one document.
    ///
    /// - Returns: The root node, or `nil` when the stream holds no document or nests too deeply.
    /// - Throws: libyaml's error; the diagnostics found before it stay in ``diagnostics``.
    mutating func build(from parser: borrowing LibYAMLParser) throws(LibYAMLError) -> YAMLNode? {
        _ = try parser.next()  // The stream start.
        guard try parser.next().kind == .documentStart else {
            return nil  // The stream ended: the file is empty or holds only comments.
        }
        let root: YAMLNode
        do throws(Failure) {
            root = try node(from: try next(parser), in: parser, depth: 0)
        } catch {
            switch error {
            case .libyaml(let error): throw error
            case .tooDeep: return nil
            }
        }
        _ = try parser.next()  // The document end.
        let following = try parser.next()
        if following.kind == .documentStart {
            // The first document is still returned, so the schema layer can report its problems too.
            report("a rule file holds one YAML document; found a second one", at: following.mark)
        }
        return root
    }

    // MARK: Nodes

    private func next(_ parser: borrowing LibYAMLParser) throws(Failure) -> LibYAMLEvent {
        do {
            return try parser.next()
        } catch {
            throw .libyaml(error)
        }
    }

    /// Builds the node that `event` starts, reading the events of its children from `parser`.
    private mutating func node(
        from event: consuming LibYAMLEvent,
        in parser: borrowing LibYAMLParser,
        depth: Int
    ) throws(Failure) -> YAMLNode {
        let mark = event.mark
        if let properties = event.properties {
            check(properties, at: mark)
        }
        switch event.kind {
        case .scalar:
            return .scalar(event.scalar())
        case .alias:
            report(Self.anchorMessage, at: mark, keyPath: keyPath(), hint: Self.anchorHint)
            // A stand-in with the alias's own text keeps the tree's shape, so later stages still check the rest.
            return .scalar(YAMLScalar(text: "*" + event.aliasAnchor, style: .plain, mark: mark))
        case .sequenceStart:
            _ = consume event
            try enter(depth: depth, at: mark)
            return .sequence(try sequence(at: mark, in: parser, depth: depth))
        case .mappingStart:
            _ = consume event
            try enter(depth: depth, at: mark)
            return .mapping(try mapping(at: mark, in: parser, depth: depth))
        case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
            // libyaml's parser checks the event grammar, so only node events come where a node is expected.
            preconditionFailure("libyaml produced \(event.kind) where a node was expected")
        }
    }

    private mutating func enter(depth: Int, at mark: SourceMark) throws(Failure) {
        guard depth < Self.maximumDepth else {
            report("the file nests deeper than \(Self.maximumDepth) levels", at: mark, keyPath: keyPath())
            throw .tooDeep
        }
    }

    private mutating func sequence(
        at mark: SourceMark,
        in parser: borrowing LibYAMLParser,
        depth: Int
    ) throws(Failure) -> YAMLSequence {
        var items: [YAMLNode] = []
        path.append(.index(0))
        defer { path.removeLast() }
        while true {
            let event = try next(parser)
            if event.kind == .sequenceEnd {
                return YAMLSequence(items: items, mark: mark)
            }
            path[path.count - 1] = .index(items.count)
            items.append(try node(from: event, in: parser, depth: depth + 1))
        }
    }

    private mutating func mapping(
        at mark: SourceMark,
        in parser: borrowing LibYAMLParser,
        depth: Int
    ) throws(Failure) -> YAMLMapping {
        var entries: [(key: YAMLScalar, value: YAMLNode)] = []
        // The first mark of each key, built only once a mapping has enough keys that scanning gets slow.
        var keyMarks: [String: SourceMark]?
        path.append(.mappingKey)
        defer { path.removeLast() }
        while true {
            let event = try next(parser)
            if event.kind == .mappingEnd {
                return YAMLMapping(entries: entries, mark: mark)
            }
            path[path.count - 1] = .mappingKey
            // Nearly every key is a plain scalar; taking it straight from the event skips wrapping it in a node.
            let keyNode: YAMLNode =
                if event.kind == .scalar && event.properties == nil {
                    .scalar(event.scalar())
                } else {
                    try node(from: event, in: parser, depth: depth + 1)
                }
            let key = accepted(key: keyNode, entries, keyMarks)
            // A reported key's value is still read, so problems inside it are found; then it is left out.
            path[path.count - 1] = .key(key.text)
            let value = try node(from: try next(parser), in: parser, depth: depth + 1)
            guard let scalar = key.scalar else { continue }
            entries.append((scalar, value))
            if keyMarks != nil {
                keyMarks?[scalar.text] = scalar.mark
            } else if entries.count > 16 {
                // Keys in entries are already unique: a repeated key is reported and never appended.
                keyMarks = Dictionary(uniqueKeysWithValues: entries.map { ($0.key.text, $0.key.mark) })
            }
        }
    }

    /// Checks a key: the scalar to keep, or `nil` after reporting a key that is not a scalar or is repeated.
    private mutating func accepted(
        key node: YAMLNode,
        _ entries: [(key: YAMLScalar, value: YAMLNode)],
        _ keyMarks: [String: SourceMark]?
    ) -> (scalar: YAMLScalar?, text: String) {
        guard case .scalar(let key) = node else {
            report("a mapping key must be a string, found \(node.kindDescription)", at: node.mark, keyPath: keyPath())
            return (nil, "?")
        }
        let first = keyMarks.map { $0[key.text] } ?? entries.first { $0.key.text == key.text }?.key.mark
        if let first {
            report(
                "duplicate key '\(key.text)' (first defined at \(first))",
                at: key.mark,
                keyPath: keyPath(appending: key.text)
            )
            return (nil, key.text)
        }
        return (key, key.text)
    }

    // MARK: Diagnostics

    private static let anchorMessage = "anchors and aliases are not supported in rule files"
    private static let anchorHint = "write the value out in full everywhere it is needed"

    /// Rule files reject every tag. Honouring `!!str` alone would buy nothing, since every scalar is already text;
    /// its one use, making `null` a string, would need a style this tree does not have, and quoting does the same
    /// in a way the schema layer already understands. Other tags would ask for typing this layer refuses to do.
    private mutating func check(_ properties: YAMLNodeProperties, at mark: SourceMark) {
        if properties.anchor != nil {
            report(Self.anchorMessage, at: mark, keyPath: keyPath(), hint: Self.anchorHint)
        }
        if let tag = properties.tagAsWritten {
            report(
                "tags such as '\(tag)' are not supported in rule files",
                at: mark,
                keyPath: keyPath(),
                hint: "remove the tag; values are read as the text written, and quotes keep a value like null a string"
            )
        }
    }

    private mutating func report(_ message: String, at mark: SourceMark, keyPath: String? = nil, hint: String? = nil) {
        diagnostics.append(Diagnostic(message, file: file, mark: mark, keyPath: keyPath, hint: hint))
    }

    /// The path to the node being read, such as `rules[2].when`, with list indices counted from 0; `nil` at the
    /// root. While a mapping is reading a key, the path stops at the mapping, since a key has no path of its own.
    private func keyPath(appending key: String? = nil) -> String? {
        var result = ""
        func append(_ name: String) {
            result += result.isEmpty ? name : "." + name
        }
        components: for component in path {
            switch component {
            case .key(let name): append(name)
            case .index(let index): result += "[\(index)]"
            case .mappingKey: break components
            }
        }
        if let key {
            append(key)
        }
        return result.isEmpty ? nil : result
    }
}
