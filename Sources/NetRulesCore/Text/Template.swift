/// Text with `{{name}}` placeholders, parsed and checked once when rules load.
///
/// Each action renders it for its own context: shell-quoted in `run`, JSON-escaped in a
/// webhook's `json:`, URL-encoded in a URL. Rendering works on bytes so that an SSID that is
/// not UTF-8 arrives byte-exact.
public struct Template: Hashable, Sendable, CustomStringConvertible {
    /// One piece of a template.
    public enum Segment: Hashable, Sendable {
        case literal(String)
        case placeholder(TemplateName)
    }

    /// The text as written.
    public let source: String
    /// The literal and placeholder pieces, in order.
    public let segments: [Segment]
    /// The Unicode-scalar offset in `source` of each placeholder's `{{`, in order: diagnostics
    /// about a placeholder point at it.
    public let placeholderOffsets: [Int]

    /// Parses a template.
    /// - Throws: `TemplateError` with the scalar offset of the problem in `source`.
    public init(_ source: String) throws(TemplateError) {
        self.source = source
        var segments: [Segment] = []
        var offsets: [Int] = []
        // Walks the scalars by index and slices the literals and names out of `source`: building them
        // scalar by scalar was most of the cost of reading a rule's commands.
        let scalars = source.unicodeScalars
        var literalStart = scalars.startIndex
        var i = scalars.startIndex
        var offset = 0
        while i != scalars.endIndex {
            let next = scalars.index(after: i)
            guard scalars[i] == "{", next != scalars.endIndex, scalars[next] == "{" else {
                i = next
                offset += 1
                continue
            }
            let start = offset
            let nameStart = scalars.index(after: next)
            var close = nameStart
            var closeOffset = offset + 2
            while close != scalars.endIndex {
                let after = scalars.index(after: close)
                if after == scalars.endIndex { break }
                if scalars[close] == "}" && scalars[after] == "}" { break }
                close = after
                closeOffset += 1
            }
            guard close != scalars.endIndex, scalars.index(after: close) != scalars.endIndex else {
                throw TemplateError(message: "unterminated '{{' in template", offset: start)
            }
            let inner = String(scalars[nameStart..<close]).trimmingSpaces
            guard let name = TemplateName(String(inner)) else {
                throw TemplateError(
                    message: inner.isEmpty ? "empty placeholder '{{}}'" : "unknown template name '\(inner)'",
                    offset: start,
                    hint: TemplateName.suggestion(for: String(inner))
                )
            }
            if literalStart != i { segments.append(.literal(String(scalars[literalStart..<i]))) }
            segments.append(.placeholder(name))
            offsets.append(start)
            i = scalars.index(close, offsetBy: 2)
            offset = closeOffset + 2
            literalStart = i
        }
        if literalStart != scalars.endIndex { segments.append(.literal(String(scalars[literalStart...]))) }
        self.segments = segments
        self.placeholderOffsets = offsets
    }

    /// Whether the template has no placeholder.
    public var isConstant: Bool {
        !segments.contains { if case .placeholder = $0 { true } else { false } }
    }

    /// The placeholders used.
    public var names: [TemplateName] {
        segments.compactMap { if case .placeholder(let n) = $0 { n } else { nil } }
    }

    /// Renders to bytes; `escape` turns each substituted value's bytes into what the context needs.
    public func renderBytes(_ context: TemplateContext, escape: ([UInt8]) -> [UInt8] = { $0 }) -> [UInt8] {
        var out: [UInt8] = []
        for segment in segments {
            switch segment {
            case .literal(let text): out += text.utf8
            case .placeholder(let name): out += escape(context.bytes(for: name))
            }
        }
        return out
    }

    /// Renders to text (non-UTF-8 bytes are repaired); `escape` works as in `renderBytes`.
    public func render(_ context: TemplateContext, escape: ([UInt8]) -> [UInt8] = { $0 }) -> String {
        String(decoding: renderBytes(context, escape: escape), as: UTF8.self)
    }

    /// The template as written.
    public var description: String { source }
}

/// A template that failed to parse.
public struct TemplateError: Error, Hashable, Sendable {
    /// What is wrong, as one sentence.
    public var message: String
    /// The Unicode-scalar offset of the problem in the template's text.
    public var offset: Int
    /// What to write instead, when there is a suggestion.
    public var hint: String?

    /// Creates an error at `offset`, a Unicode-scalar offset into the template's text.
    public init(message: String, offset: Int, hint: String? = nil) {
        self.message = message
        self.offset = offset
        self.hint = hint
    }
}
