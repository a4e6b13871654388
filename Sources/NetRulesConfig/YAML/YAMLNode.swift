import NetRulesCore

/// A node of the untyped YAML tree: a scalar, a mapping or a sequence.
///
/// The tree holds only Swift values (no C pointers), so it is `Sendable` and outlives the parser that built it.
///
/// The enum is deliberately not `indirect`: the arrays in mappings and sequences already give the recursion its
/// indirection, and boxing every node on top of that cost an allocation per node, about 5% of parse time, and more
/// when the tree is freed.
public enum YAMLNode: Sendable {
    /// A scalar: text with its style and mark.
    case scalar(YAMLScalar)

    /// A mapping of scalar keys to nodes.
    case mapping(YAMLMapping)

    /// A sequence of nodes.
    case sequence(YAMLSequence)

    /// Where the node starts in the file.
    public var mark: SourceMark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .mapping(let mapping): mapping.mark
        case .sequence(let sequence): sequence.mark
        }
    }

    /// The scalar, or `nil` when the node is a mapping or a sequence.
    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = self { scalar } else { nil }
    }

    /// The mapping, or `nil` when the node is a scalar or a sequence.
    public var mapping: YAMLMapping? {
        if case .mapping(let mapping) = self { mapping } else { nil }
    }

    /// The sequence, or `nil` when the node is a scalar or a mapping.
    public var sequence: YAMLSequence? {
        if case .sequence(let sequence) = self { sequence } else { nil }
    }

    /// What the node is, in the words a user reads: "a string", "a mapping", "a list" or "null".
    ///
    /// It is meant for messages such as "expected a list, found a mapping". A scalar that is
    /// ``YAMLScalar/isNull`` is "null"; every other scalar is "a string", because this layer does no typing.
    public var kindDescription: String {
        switch self {
        case .scalar(let scalar): scalar.isNull ? "null" : "a string"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}
