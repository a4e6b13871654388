import NetRulesCore

/// The entry point of the YAML layer: one rule file's bytes in, an untyped tree and diagnostics out.
///
/// The layer does no guessing: every scalar stays text with its style, and the schema layer decides what it means.
public enum YAMLDocument {
    /// Parses one YAML document into an untyped tree.
    ///
    /// It never throws: every problem becomes a diagnostic with a position, and the diagnostics come back sorted
    /// by position. Besides libyaml's syntax and encoding errors, it reports what rule files do not allow:
    /// a repeated key in a mapping (at the second key; the first entry is kept and parsing goes on), a second
    /// document, anchors and aliases, tags (all of them, `!!str` included), non-scalar keys, and nesting deeper
    /// than 256 levels. A reported key's entry is left out of its mapping; an alias is replaced by a plain scalar
    /// holding its own text (`*name`), so the rest of the file can still be checked.
    ///
    /// The input is read as UTF-8; a leading byte-order mark is skipped, and columns count from after it.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - file: The file as the user named it, for the diagnostics.
    /// - Returns: The root node, or `nil` for an empty file, a file with only comments, or when a syntax or
    ///   encoding error (or too deep a nesting) makes the tree unusable; and every diagnostic, sorted by position.
    public static func parse(_ bytes: [UInt8], file: String) -> (root: YAMLNode?, diagnostics: [Diagnostic]) {
        let start = bytes.starts(with: SourceText.byteOrderMark) ? SourceText.byteOrderMark.count : 0
        var builder = YAMLTreeBuilder(file: file)
        let outcome = LibYAMLParser.withParser(parsing: bytes[start...]) { parser -> Result<YAMLNode?, LibYAMLError> in
            do throws(LibYAMLError) {
                return .success(try builder.build(from: parser))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let root):
            return (root, builder.diagnostics.sortedByPosition())
        case .failure(let error):
            // Only the failure path needs the lines, to place reader errors and to pick hints.
            let source = SourceText(file: file, bytes: bytes)
            let diagnostics = builder.diagnostics + [error.diagnostic(file: file, source: source)]
            return (nil, diagnostics.sortedByPosition())
        }
    }
}
