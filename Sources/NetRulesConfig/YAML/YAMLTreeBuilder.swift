/// Builds the untyped tree from libyaml events and reports what rule files do not allow.
///
/// It keeps an explicit stack of open containers rather than recursing, so the depth of a file cannot exhaust
/// the thread's stack while building; ``maximumDepth`` bounds the depth so that destroying the tree cannot either.
struct YAMLTreeBuilder {
    /// Deeper than any sensible rule file, and shallow enough that the recursive destruction of the tree stays
    /// well within a small thread stack.
    static let maximumDepth = 256

    let file: String

    /// The document's root, once it is complete; `nil` for an empty stream or after a fatal problem.
    private(set) var root: YAMLNode?

    /// Problems found so far, in the order they were found.
    private(set) var diagnostics: [Diagnostic] = []

    private var stack: [Frame] = []
    private var documentCount = 0

    init(file: String) {
        self.file = file
    }

    /// Feeds one event to the builder.
    ///
    /// - Returns: `false` when the builder wants no more events: at the end of the stream, at a second document,
    ///   or when the file nests too deeply.
    mutating func consume(_ event: YAMLEvent) -> Bool {
        switch event {
        case .streamStart, .documentEnd:
            return true
        case .streamEnd:
            return false
        case .documentStart(let mark):
            documentCount += 1
            guard documentCount == 1 else {
                // The first document's tree is still returned, so the schema layer can report its problems too.
                report("a rule file holds one YAML document; found a second one", at: mark)
                return false
            }
            return true
        case .alias(let anchor, let mark):
            report(Self.anchorMessage, at: mark, keyPath: keyPath(), hint: Self.anchorHint)
            // A stand-in with the alias's own text keeps the tree's shape, so later stages still check the rest.
            add(.scalar(YAMLScalar(text: "*" + anchor, style: .plain, mark: mark)))
            return true
        case .scalar(let scalar, let properties):
            check(properties, at: scalar.mark)
            add(.scalar(scalar))
            return true
        case .sequenceStart(let mark, let properties):
            check(properties, at: mark)
            return push(Frame(kind: .sequence, mark: mark))
        case .mappingStart(let mark, let properties):
            check(properties, at: mark)
            return push(Frame(kind: .mapping, mark: mark))
        case .sequenceEnd, .mappingEnd:
            add(stack.removeLast().node)
            return true
        }
    }

    // MARK: Containers

    private struct Frame {
        enum Kind { case mapping, sequence }

        /// What the next complete node means to a mapping.
        enum Slot {
            /// The next node is a key.
            case key

            /// The next node is the value of this key.
            case value(of: YAMLScalar)

            /// The next node is the value of a key that was reported; it is read and then dropped.
            case droppedValue(keyText: String?)
        }

        var kind: Kind
        var mark: SourceMark
        var items: [YAMLNode] = []
        var entries: [(key: YAMLScalar, value: YAMLNode)] = []
        var slot = Slot.key

        /// The first mark of each key, built only once a mapping has enough keys that scanning gets slow.
        var keyMarks: [String: SourceMark]?

        init(kind: Kind, mark: SourceMark) {
            self.kind = kind
            self.mark = mark
        }

        var node: YAMLNode {
            switch kind {
            case .mapping: .mapping(YAMLMapping(entries: entries, mark: mark))
            case .sequence: .sequence(YAMLSequence(items: items, mark: mark))
            }
        }

        func firstMark(ofKey text: String) -> SourceMark? {
            if let keyMarks { return keyMarks[text] }
            return entries.first { $0.key.text == text }?.key.mark
        }

        mutating func append(key: YAMLScalar, value: YAMLNode) {
            entries.append((key, value))
            if keyMarks != nil {
                keyMarks?[key.text] = key.mark
            } else if entries.count > 16 {
                // Keys in entries are already unique: a repeated key is reported and never appended.
                keyMarks = Dictionary(uniqueKeysWithValues: entries.map { ($0.key.text, $0.key.mark) })
            }
        }
    }

    private mutating func push(_ frame: Frame) -> Bool {
        guard stack.count < Self.maximumDepth else {
            report("the file nests deeper than \(Self.maximumDepth) levels", at: frame.mark, keyPath: keyPath())
            root = nil
            return false
        }
        stack.append(frame)
        return true
    }

    /// Puts a complete node where it belongs: at the root, in a list, or as a mapping's key or value.
    private mutating func add(_ node: YAMLNode) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        if stack[top].kind == .sequence {
            stack[top].items.append(node)
            return
        }
        switch stack[top].slot {
        case .key:
            stack[top].slot = slot(forKey: node)
        case .value(let key):
            stack[top].append(key: key, value: node)
            stack[top].slot = .key
        case .droppedValue:
            stack[top].slot = .key
        }
    }

    /// Accepts a key, or reports it; a reported key's value is still read, so problems inside it are found.
    private mutating func slot(forKey node: YAMLNode) -> Frame.Slot {
        guard case .scalar(let key) = node else {
            report("a mapping key must be a string, found \(node.kindDescription)", at: node.mark, keyPath: keyPath())
            return .droppedValue(keyText: nil)
        }
        if let first = stack[stack.count - 1].firstMark(ofKey: key.text) {
            report(
                "duplicate key '\(key.text)' (first defined at \(first))",
                at: key.mark,
                keyPath: keyPath(appending: key.text)
            )
            return .droppedValue(keyText: key.text)
        }
        return .value(of: key)
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
        var path = ""
        func append(_ name: String) {
            path += path.isEmpty ? name : "." + name
        }
        for (index, frame) in stack.enumerated() {
            switch (frame.kind, frame.slot) {
            case (.sequence, _):
                path += "[\(frame.items.count)]"
            case (.mapping, .value(let key)):
                append(key.text)
            case (.mapping, .droppedValue(let keyText)):
                append(keyText ?? "?")
            case (.mapping, .key):
                if index < stack.count - 1 {
                    return path.isEmpty ? nil : path
                }
            }
        }
        if let key {
            append(key)
        }
        return path.isEmpty ? nil : path
    }
}
