import NetRulesCore

/// The text of one file, split into lines once, for rendering diagnostics.
///
/// Lines break where libyaml breaks them (LF, CR LF, a lone CR, and YAML 1.1's NEL, LS and PS), so a line
/// number in a ``SourceMark`` names the same line here. A leading UTF-8 byte-order mark is dropped, as libyaml
/// drops it before counting columns. Bytes that are not valid UTF-8 show as U+FFFD.
public struct SourceText: Sendable {
    /// The file as the user named it; ``Diagnostic/rendered(source:)`` only uses a source with the same name.
    public let file: String

    /// The file's bytes without a leading byte-order mark.
    private let bytes: [UInt8]

    /// The byte range of each line's content, without its line break.
    private let lines: [Range<Int>]

    /// Splits a file into lines.
    ///
    /// - Parameters:
    ///   - file: The file as the user named it.
    ///   - bytes: The file's contents.
    public init(file: String, bytes: [UInt8]) {
        self.file = file
        let text = bytes.starts(with: Self.byteOrderMark) ? Array(bytes.dropFirst(Self.byteOrderMark.count)) : bytes
        self.bytes = text
        self.lines = Self.lineRanges(of: text)
    }

    /// The text of a line, without its line break, or `nil` when the file has no such line.
    ///
    /// A file has one line more than it has line breaks, so the empty line after a final newline exists: libyaml
    /// reports an unexpected end of file there.
    ///
    /// - Parameter number: The 1-based line number.
    public func line(_ number: Int) -> String? {
        guard lines.indices.contains(number - 1) else { return nil }
        return String(decoding: bytes[lines[number - 1]], as: UTF8.self)
    }

    /// The mark of a byte offset, counted from the first byte after any byte-order mark.
    ///
    /// libyaml reports encoding problems as a byte offset rather than a mark; this turns one into a line and a
    /// column in Unicode scalars. An offset inside a line break maps to the end of its line.
    func mark(atByteOffset offset: Int) -> SourceMark {
        // The last line whose first byte is at or before the offset.
        var low = 0
        var high = lines.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lines[middle].lowerBound <= offset { low = middle } else { high = middle - 1 }
        }
        let line = lines[low]
        let prefix = bytes[line.lowerBound..<min(max(offset, line.lowerBound), line.upperBound)]
        return SourceMark(line: low + 1, column: String(decoding: prefix, as: UTF8.self).unicodeScalars.count + 1)
    }

    /// Where the first byte that is not part of a valid UTF-8 sequence is, and its value; `nil` for valid UTF-8.
    func firstInvalidUTF8() -> (offset: Int, byte: Int)? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error: return (offset, Int(bytes[offset]))
            case .emptyInput: return nil
            }
        }
    }

    /// Whether the file starts like UTF-16 text, which deserves a clearer message than "invalid byte 0xFF".
    var startsWithUTF16ByteOrderMark: Bool {
        bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
    }

    /// The UTF-8 byte-order mark, which libyaml skips and so must we.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private static func lineRanges(of bytes: [UInt8]) -> [Range<Int>] {
        bytes.withUnsafeBufferPointer { buffer in
            var ranges: [Range<Int>] = []
            var start = 0
            var index = 0
            while index < buffer.count {
                let breakLength = lineBreakLength(in: buffer, at: index)
                if breakLength == 0 {
                    index += 1
                } else {
                    ranges.append(start..<index)
                    index += breakLength
                    start = index
                }
            }
            ranges.append(start..<buffer.count)
            return ranges
        }
    }

    /// The length in bytes of the line break at `index`, or 0 when there is none.
    private static func lineBreakLength(in buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let remaining = buffer.count - index
        switch buffer[index] {
        case 0x0A:
            return 1
        case 0x0D:
            return remaining > 1 && buffer[index + 1] == 0x0A ? 2 : 1
        case 0xC2:  // NEL is C2 85.
            return remaining > 1 && buffer[index + 1] == 0x85 ? 2 : 0
        case 0xE2:  // LS is E2 80 A8, PS is E2 80 A9.
            return remaining > 2 && buffer[index + 1] == 0x80 && (0xA8...0xA9).contains(buffer[index + 2]) ? 3 : 0
        default:
            return 0
        }
    }
}
