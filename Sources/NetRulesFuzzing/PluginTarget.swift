import NetRulesCore
import NetRulesLinux

/// `plugin`: an observer plugin's output, split into lines and decoded as the daemon does.
enum PluginTarget {
    static func run(_ bytes: [UInt8]) {
        var facts = FactStore()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let text = String(decoding: line, as: UTF8.self)
            guard !text.allSatisfy({ $0 == " " || $0 == "\r" }) else { continue }
            switch PluginLine.parse(text) {
            case .success(let update):
                facts.apply(update)
            case .failure(let malformed):
                keep("skipped a malformed line (\(malformed)): \(TerminalText.escaped(bytes: Array(line.prefix(200))))")
            }
        }
        keep(facts.known.map { "\($0.key) \($0.state)" })
        keep(JSONValue.object(facts.known.map { ($0.key.rawValue, JSONValue($0.state)) }).compact)
    }
}
