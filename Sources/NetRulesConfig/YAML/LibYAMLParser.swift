internal import CYAML

/// The one owner of a libyaml `yaml_parser_t` and of the event it is currently reading.
///
/// The parser and its event buffer live at fixed heap addresses, because libyaml keeps pointers into the parser
/// state and Swift may move a struct's stored properties. `deinit` calls `yaml_parser_delete`, and ``next()``
/// frees each event with `yaml_event_delete` before it returns, after copying what it needs into Swift values, so
/// nothing libyaml allocated outlives the call that allocated it.
///
/// Not `Sendable` and not copyable: confine it to the parse that created it. Create it only through
/// ``withParser(parsing:_:)``, which keeps the input bytes alive for as long as the parser exists.
struct LibYAMLParser: ~Copyable {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let event: UnsafeMutablePointer<yaml_event_t>

    /// Runs `body` with a parser reading `bytes`, which must be UTF-8 without a byte-order mark.
    ///
    /// libyaml reads the input lazily through the pointer it was given, so the parser is created and destroyed
    /// inside the scope that pins the bytes.
    static func withParser<Result>(
        parsing bytes: ArraySlice<UInt8>,
        _ body: (inout LibYAMLParser) -> Result
    ) -> Result {
        // libyaml asserts a non-null input pointer, which an empty buffer need not have.
        let storage: ArraySlice<UInt8> = bytes.isEmpty ? [0] : bytes
        return storage.withUnsafeBufferPointer { buffer in
            var parser = LibYAMLParser(input: buffer.baseAddress!, count: bytes.count)
            return body(&parser)
        }
    }

    private init(input: UnsafePointer<UInt8>, count: Int) {
        parser = .allocate(capacity: 1)
        event = .allocate(capacity: 1)
        // yaml_parser_initialize fails only when malloc does, which Swift treats as fatal everywhere else too.
        guard yaml_parser_initialize(parser) != 0 else { fatalError("libyaml could not allocate a parser") }
        yaml_parser_set_input_string(parser, input, count)
        // Without this libyaml would also accept UTF-16, whose marks and bytes SourceText could not line up with.
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        event.deallocate()
    }

    /// Reads the next event; after `streamEnd`, or after an error, libyaml has nothing more to give.
    func next() throws(LibYAMLError) -> YAMLEvent {
        guard yaml_parser_parse(parser, event) != 0 else {
            throw LibYAMLError(parser.pointee)
        }
        defer { yaml_event_delete(event) }
        let mark = SourceMark(event.pointee.start_mark)
        switch event.pointee.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT:
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.pointee.data.alias.anchor) ?? "", mark: mark)
        case YAML_SCALAR_EVENT:
            let data = event.pointee.data.scalar
            // One decode per scalar, straight from libyaml's buffer, which it has already checked is UTF-8.
            let text = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
            let scalar = YAMLScalar(text: text, style: YAMLScalarStyle(data.style), mark: mark)
            return .scalar(scalar, Self.properties(anchor: data.anchor, tag: data.tag))
        case YAML_SEQUENCE_START_EVENT:
            let data = event.pointee.data.sequence_start
            return .sequenceStart(mark, Self.properties(anchor: data.anchor, tag: data.tag))
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            let data = event.pointee.data.mapping_start
            return .mappingStart(mark, Self.properties(anchor: data.anchor, tag: data.tag))
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        default:
            // YAML_NO_EVENT is only ever an output of a failed parse, which threw above.
            fatalError("libyaml produced an unknown event type \(event.pointee.type.rawValue)")
        }
    }

    private static func properties(
        anchor: UnsafeMutablePointer<yaml_char_t>?,
        tag: UnsafeMutablePointer<yaml_char_t>?
    ) -> YAMLNodeProperties {
        if anchor == nil && tag == nil { return .none }
        return YAMLNodeProperties(anchor: string(anchor), tag: string(tag))
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
