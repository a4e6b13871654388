internal import CYAML

/// The one owner of a libyaml `yaml_parser_t`.
///
/// The parser lives at a fixed heap address because libyaml's parser state is not meant to move, and Swift may
/// move a struct's stored properties. `deinit` calls `yaml_parser_delete`; each event comes out as a
/// ``LibYAMLEvent``, which frees itself.
///
/// Not `Sendable` and not copyable: confine it to the parse that created it. Create it only through
/// ``withParser(parsing:_:)``, which keeps the input bytes alive for as long as the parser exists.
struct LibYAMLParser: ~Copyable {
    private let parser: UnsafeMutablePointer<yaml_parser_t>

    /// Runs `body` with a parser reading `bytes`, which must be UTF-8 without a byte-order mark.
    ///
    /// libyaml reads the input lazily through the pointer it was given, so the parser is created and destroyed
    /// inside the scope that pins the bytes.
    static func withParser<Result>(
        parsing bytes: ArraySlice<UInt8>,
        _ body: (borrowing LibYAMLParser) -> Result
    ) -> Result {
        // libyaml asserts a non-null input pointer, which an empty buffer need not have.
        let storage: ArraySlice<UInt8> = bytes.isEmpty ? [0] : bytes
        return storage.withUnsafeBufferPointer { buffer in
            let parser = LibYAMLParser(input: buffer.baseAddress!, count: bytes.count)
            return body(parser)
        }
    }

    private init(input: UnsafePointer<UInt8>, count: Int) {
        parser = .allocate(capacity: 1)
        // yaml_parser_initialize fails only when malloc does, which Swift treats as fatal everywhere else too.
        guard yaml_parser_initialize(parser) != 0 else { fatalError("libyaml could not allocate a parser") }
        yaml_parser_set_input_string(parser, input, count)
        // Without this libyaml would also accept UTF-16, whose marks and bytes SourceText could not line up with.
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
    }

    /// Reads the next event with `yaml_parser_parse`; after `streamEnd`, or after an error, there is nothing more.
    func next() throws(LibYAMLError) -> LibYAMLEvent {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else {
            throw LibYAMLError(parser.pointee)
        }
        return LibYAMLEvent(taking: event)
    }
}
