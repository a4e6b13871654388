import NetRulesConfig
import NetRulesCore

/// Parses YAML written as a Swift string.
func parseYAML(_ text: String, file: String = "rules.yaml") -> (root: YAMLNode?, diagnostics: [Diagnostic]) {
    YAMLDocument.parse(Array(text.utf8), file: file)
}

/// Parses bytes and renders every diagnostic against the same bytes, separated by blank lines.
func renderedDiagnostics(_ bytes: [UInt8], file: String = "rules.yaml") -> String {
    let source = SourceText(file: file, bytes: bytes)
    return YAMLDocument.parse(bytes, file: file).diagnostics
        .map { $0.rendered(source: source) }
        .joined(separator: "\n\n")
}

/// Parses text and renders every diagnostic against it, separated by blank lines.
func renderedDiagnostics(_ text: String, file: String = "rules.yaml") -> String {
    renderedDiagnostics(Array(text.utf8), file: file)
}

/// Renders a tree as indented lines, one per node, with every style and mark, so a test can assert all of it.
///
/// A scalar reads `plain "text" @1:4`; a mapping entry reads `key -> value`, with a container value on the lines
/// below it.
func dump(_ node: YAMLNode?) -> String {
    guard let node else { return "nil" }
    var lines: [String] = []
    dump(node, indent: "", into: &lines)
    return lines.joined(separator: "\n")
}

private func dump(_ node: YAMLNode, indent: String, into lines: inout [String]) {
    switch node {
    case .scalar(let scalar):
        lines.append(indent + describe(scalar))
    case .sequence(let sequence):
        lines.append(indent + "sequence @\(sequence.mark)")
        for item in sequence.items {
            dump(item, indent: indent + "  ", into: &lines)
        }
    case .mapping(let mapping):
        lines.append(indent + "mapping @\(mapping.mark)")
        for (key, value) in mapping.entries {
            if case .scalar(let scalar) = value {
                lines.append(indent + "  " + describe(key) + " -> " + describe(scalar))
            } else {
                lines.append(indent + "  " + describe(key) + " ->")
                dump(value, indent: indent + "    ", into: &lines)
            }
        }
    }
}

private func describe(_ scalar: YAMLScalar) -> String {
    "\(scalar.style) \(scalar.text.debugDescription) @\(scalar.mark)"
}
