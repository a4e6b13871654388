internal import CYAML
import NetRulesCore

/// The one owner of a libyaml `yaml_event_t`: `deinit` frees it with `yaml_event_delete`.
///
/// Being `~Copyable`, an event cannot be freed twice or used after it is freed, and it dies as soon as its owner
/// is done with it. Its accessors copy what they return into Swift values, so nothing points into the event after
/// it is gone. Scalar text is decoded once, straight from libyaml's buffer, and only when asked for.
struct LibYAMLEvent: ~Copyable {
    /// What kind of event this is; a Swift enum so the builder can switch on it without touching C types.
    enum Kind {
        case streamStart
        case streamEnd
        case documentStart
        case documentEnd
        case alias
        case scalar
        case sequenceStart
        case sequenceEnd
        case mappingStart
        case mappingEnd
    }

    private let event: yaml_event_t

    /// The event's kind.
    let kind: Kind

    /// Takes ownership of an event that `yaml_parser_parse` filled in.
    init(taking event: yaml_event_t) {
        self.event = event
        switch event.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_STREAM_END_EVENT: kind = .streamEnd
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_ALIAS_EVENT: kind = .alias
        case YAML_SCALAR_EVENT: kind = .scalar
        case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart
        case YAML_SEQUENCE_END_EVENT: kind = .sequenceEnd
        case YAML_MAPPING_START_EVENT: kind = .mappingStart
        case YAML_MAPPING_END_EVENT: kind = .mappingEnd
        default:
            // YAML_NO_EVENT only ever comes out of a failed parse, which never makes an event.
            fatalError("libyaml produced an unknown event type \(event.type.rawValue)")
        }
    }

    deinit {
        var event = event
        yaml_event_delete(&event)
    }

    /// Where the event starts; for a node with an anchor or a tag, that is where the first of them starts.
    var mark: SourceMark {
        SourceMark(event.start_mark)
    }

    /// The scalar of a `.scalar` event.
    func scalar() -> YAMLScalar {
        let data = event.data.scalar
        // libyaml has already rejected input that is not UTF-8, so decoding repairs nothing.
        let text = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
        return YAMLScalar(text: text, style: YAMLScalarStyle(data.style), mark: mark)
    }

    /// The anchor named by an `.alias` event.
    var aliasAnchor: String {
        Self.string(event.data.alias.anchor) ?? ""
    }

    /// The anchor and tag of a node's event, or `nil` when it has neither, which is the only case rule files allow.
    var properties: YAMLNodeProperties? {
        let anchor: UnsafeMutablePointer<yaml_char_t>?
        let tag: UnsafeMutablePointer<yaml_char_t>?
        switch kind {
        case .scalar: (anchor, tag) = (event.data.scalar.anchor, event.data.scalar.tag)
        case .sequenceStart: (anchor, tag) = (event.data.sequence_start.anchor, event.data.sequence_start.tag)
        case .mappingStart: (anchor, tag) = (event.data.mapping_start.anchor, event.data.mapping_start.tag)
        default: return nil
        }
        if anchor == nil && tag == nil {
            return nil
        }
        return YAMLNodeProperties(anchor: Self.string(anchor), tag: Self.string(tag))
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

extension SourceMark {
    /// Converts libyaml's 0-based mark, whose column libyaml already counts in characters (Unicode scalars).
    init(_ mark: yaml_mark_t) {
        self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

extension YAMLScalarStyle {
    init(_ style: yaml_scalar_style_t) {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: self = .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: self = .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: self = .literal
        case YAML_FOLDED_SCALAR_STYLE: self = .folded
        default: self = .plain  // libyaml reports YAML_ANY_SCALAR_STYLE only when emitting, never when parsing.
        }
    }
}
