import NetRulesCore
import NetRulesDaemon

/// `control`: a control-socket request line, and the JSON reader under it.
enum ControlTarget {
    static func run(_ bytes: [UInt8]) {
        switch ControlRequest.parse(bytes) {
        case .success(let request):
            // What a client sends for a request must read back as the same request.
            let line = request.document.compactBytes
            require(ControlRequest.parse(line) == .success(request), "\(request) does not survive its own document")
        case .failure(let error):
            keep(error)
        }
        // The decoding outcome was kept above; the round-trip check below needs a document.
        guard let value = try? JSONValue.parse(bytes) else { return }
        // A document read and printed again comes out as it came in (JSONValue+Parsing.swift).
        let compact = value.compact
        for printed in [compact, value.pretty] {
            let reread: JSONValue
            do {
                reread = try JSONValue.parse(Array(printed.utf8))
            } catch {
                require(false, "the printed document \(printed) does not parse: \(error)")
                return
            }
            require(reread.compact == compact, "\(printed) reads back as \(reread.compact), not \(compact)")
        }
    }
}
