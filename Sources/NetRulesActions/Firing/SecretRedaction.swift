import NetRulesCore
import NetRulesSystem

/// Masks the secrets a firing reads with `{{env.NAME}}` in what its actions print, before that
/// text reaches the log or the history.
///
/// Each value is searched for as its raw bytes and in every form netrules renders it in: shell-
/// quoted for each of the three quoting contexts of a `run:` command, JSON-escaped (`json:` bodies,
/// plugin options), percent-encoded as a URL component and as a header value. Each match becomes
/// `<secret>`; at one position the longest form wins.
///
/// - Values shorter than `minimumLength` bytes are not searched for: masking every `1` or `a`
///   would garble the text, and where the `<secret>`s stood would spell the value anyway. A
///   process's output that could show such a value is withheld whole instead (`logText(of:)`);
///   netrules' own messages are kept, since they never quote a value.
/// - An empty value hides nothing and is ignored (an action that reads one is refused before it
///   runs, see `ActionRunner`).
/// - Output is masked once the process has ended, on everything captured, so a value written in
///   several pieces is found whole. When the capture limit cut the output, the end of what was
///   kept may be the start of a value: those bytes are dropped and counted as discarded.
struct SecretRedaction: Sendable {
    /// The shortest value that is masked where it appears (in UTF-8 bytes).
    static let minimumLength = 4
    /// What stands for a value.
    static let mask = Array("<secret>".utf8)

    /// Every form of every value, longest first, each once.
    let forms: [[UInt8]]
    /// The variables whose values are too short to mask, in the order read.
    let tooShort: [String]

    /// Masks nothing.
    static let none = SecretRedaction(forms: [], tooShort: [])

    private init(forms: [[UInt8]], tooShort: [String]) {
        self.forms = forms
        self.tooShort = tooShort
    }

    /// The masks for the variables `names`, with their values from `environment` (an unset one
    /// has nothing to mask).
    init(names: [String], environment: [String: String]) {
        var forms: Set<[UInt8]> = []
        var tooShort: [String] = []
        for name in names {
            guard let value = environment[name], !value.isEmpty else { continue }
            let raw = Array(value.utf8)
            guard raw.count >= Self.minimumLength else {
                tooShort.append(name)
                continue
            }
            forms.insert(raw)
            for context in [ShellQuotingContext.unquoted, .doubleQuoted, .singleQuoted] {
                forms.insert(ShellQuoting.render(raw, in: context))
            }
            forms.insert(Array(JSONValue.escapedContents(bytes: raw).utf8))
            forms.insert(PercentEncoding.urlComponent(raw))
            forms.insert(PercentEncoding.headerValue(raw))
        }
        self.init(
            forms: forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) },
            tooShort: tooShort)
    }

    /// The masks for every variable `actions` read.
    init(actions: [ActionSpec], environment: [String: String]) {
        var names: [String] = []
        for spec in actions {
            for name in spec.action.environmentNames where !names.contains(name) { names.append(name) }
        }
        self.init(names: names, environment: environment)
    }

    /// Whether there is nothing to mask or withhold.
    var isEmpty: Bool { forms.isEmpty && tooShort.isEmpty }

    /// `bytes` with each value, in any of its forms, replaced by `<secret>`.
    func redact(_ bytes: [UInt8]) -> [UInt8] {
        guard !forms.isEmpty else { return bytes }
        var firstBytes = [Bool](repeating: false, count: 256)
        for form in forms { firstBytes[Int(form[0])] = true }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if firstBytes[Int(bytes[index])], let form = forms.first(where: { bytes[index...].starts(with: $0) }) {
                out += Self.mask
                index += form.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// `text` with each value replaced by `<secret>`.
    func redact(_ text: String) -> String {
        guard !forms.isEmpty else { return text }
        // Forms are whole UTF-8 strings, so cutting at their edges leaves valid UTF-8.
        return String(decoding: redact(Array(text.utf8)), as: UTF8.self)
    }

    /// How many bytes at the end of `bytes` could begin a value: the longest proper prefix of a
    /// form that `bytes` ends with.
    func partialLength(atEndOf bytes: [UInt8]) -> Int {
        var longest = 0
        for form in forms {
            for length in stride(from: min(form.count - 1, bytes.count), to: longest, by: -1)
            where bytes.suffix(length).elementsEqual(form.prefix(length)) {
                longest = length
                break
            }
        }
        return longest
    }

    /// Captured output for a log line (see `CapturedOutput.logText`), its values masked; withheld
    /// when a value too short to mask may be in it.
    func logText(of output: CapturedOutput) -> String {
        if !tooShort.isEmpty {
            let names = tooShort.map { "{{env.\($0)}}" }.joined(separator: ", ")
            return "(\(output.bytes.count + output.discardedCount) bytes withheld: they may show \(names), "
                + "too short to mask (under \(Self.minimumLength) bytes))"
        }
        guard !forms.isEmpty else { return output.logText }
        var masked = output
        if masked.discardedCount > 0 {
            let cut = partialLength(atEndOf: masked.bytes)
            masked.bytes.removeLast(cut)
            masked.discardedCount += cut
        }
        masked.bytes = redact(masked.bytes)
        return masked.logText
    }

    /// `error` with its message and cause masked.
    func redact(_ error: ActionError) -> ActionError {
        guard !forms.isEmpty else { return error }
        var masked = error
        masked.message = redact(error.message)
        if let cause = error.cause {
            let detailed = (cause as? any DetailedError)?.detailedDescription ?? "\(cause)"
            masked.cause = MaskedCause(message: redact("\(cause)"), detailedDescription: redact(detailed))
        }
        return masked
    }

    /// `result` with its output and failure masked.
    func redact(_ result: ActionResult) -> ActionResult {
        guard !forms.isEmpty else { return result }
        var masked = result
        masked.output = result.output.map(redact)
        if case .failed(let error) = result.outcome { masked.outcome = .failed(redact(error)) }
        if case .skipped(let reason) = result.outcome { masked.outcome = .skipped(reason: redact(reason)) }
        return masked
    }
}

/// A cause whose text had secrets masked: the original error cannot be kept, since any rendering
/// of it would show them.
/// Its detailed form is the original's, masked, kept whole (code and throw site included).
struct MaskedCause: DetailedError, Sendable {
    let message: String
    let detailedDescription: String
    var description: String { message }
    var code: String { "masked" }
    var file: String { "" }
    var line: Int { 0 }
}
