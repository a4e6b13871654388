/// A `run:` command that `/bin/sh` would run as one simple command of plain words, so the runner
/// can start the program itself with the same argv instead of starting a shell first (as `make`
/// does for its recipe lines).
///
/// It exists only when every word is made of literal characters, backslash-escaped characters,
/// single-quoted text, double-quoted text without `$`, `` ` `` or `\`, and placeholders (in any of
/// their three contexts): words the shell would only remove quotes from. Anything else (operators,
/// redirections, expansions, globs, `~`, braces, comments, assignments, line continuations, a
/// reserved word or a builtin of dash or bash as the command name, an empty command) keeps the
/// command on `/bin/sh -c`, where it always runs correctly; this type errs on that side.
///
/// The arguments equal what the shell's word splitting and quote removal make of `render(_:)`'s
/// command line: each value is cut at its first NUL byte exactly as `ShellQuoting` cuts it, and a
/// word made only of an empty value is still an (empty) argument, as the shell keeps `''`.
public struct ShellSimpleCommand: Hashable, Sendable {
    /// One piece of a word.
    public enum Piece: Hashable, Sendable {
        /// Text after quote removal.
        case literal([UInt8])
        /// A template name; its value is substituted as data.
        case placeholder(TemplateName)
    }

    /// The words, the program's name first; none is empty of pieces unless it was written `''`.
    public let words: [[Piece]]

    /// The name of the program as written (quotes removed): never holds a placeholder.
    public var commandName: [UInt8] {
        words[0].reduce(into: []) { name, piece in if case .literal(let bytes) = piece { name += bytes } }
    }

    /// Reads `template`, or returns nil when the command needs a shell.
    ///
    /// `template` must already have been accepted by `ShellCommandTemplate` (so every placeholder
    /// stands where a value is data).
    public init?(_ template: Template) {
        var reader = Reader(template)
        guard let words = reader.words(), let first = words.first else { return nil }
        var name: [UInt8] = []
        for piece in first {
            guard case .literal(let bytes) = piece else { return nil }
            name += bytes
        }
        guard !name.isEmpty, !name.contains(UInt8(ascii: "=")) else { return nil }
        if !name.contains(UInt8(ascii: "/")) && Self.shellOwnNames.contains(String(decoding: name, as: UTF8.self)) {
            return nil
        }
        self.words = words
    }

    /// The argv for `context`: the words with each value's bytes, cut at a NUL, in its place.
    public func arguments(_ context: TemplateContext) -> [[UInt8]] {
        words.map { word in
            word.reduce(into: [UInt8]()) { argument, piece in
                switch piece {
                case .literal(let bytes): argument += bytes
                case .placeholder(let name): argument += context.bytes(for: name).prefix { $0 != 0 }
                }
            }
        }
    }

    /// Names the shell runs itself, or reads as syntax, instead of looking for a program: dash's
    /// reserved words and builtins (its `echo` and `printf` differ from /usr/bin's, its `kill`,
    /// `test` and `pwd` too), and bash's, for systems where `/bin/sh` is bash.
    public static let shellOwnNames: Set<String> = [
        // dash's reserved words.
        "!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then", "until", "while",
        // dash's builtins.
        ".", ":", "[", "alias", "bg", "break", "cd", "chdir", "command", "continue", "echo", "eval", "exec", "exit",
        "export", "false", "fc", "fg", "getopts", "hash", "jobs", "kill", "local", "printf", "pwd", "read",
        "readonly", "return", "set", "shift", "test", "times", "trap", "true", "type", "ulimit", "umask", "unalias",
        "unset", "wait",
        // bash's further reserved words and builtins.
        "[[", "]]", "coproc", "function", "select", "time", "bind", "builtin", "caller", "compgen", "complete",
        "compopt", "declare", "dirs", "disown", "enable", "help", "history", "let", "logout", "mapfile", "popd",
        "pushd", "readarray", "shopt", "source", "suspend", "typeset",
    ]
}

/// The scanner behind `ShellSimpleCommand`: a whitelist, so anything it does not know ends it.
private struct Reader {
    private enum Unit: Equatable {
        case byte(UInt8)
        case placeholder(TemplateName)
    }

    private let units: [Unit]
    private var position = 0

    init(_ template: Template) {
        var units: [Unit] = []
        for segment in template.segments {
            switch segment {
            case .literal(let text): units += text.utf8.map(Unit.byte)
            case .placeholder(let name): units.append(.placeholder(name))
            }
        }
        self.units = units
    }

    /// The words, or nil at the first thing only a shell can do.
    mutating func words() -> [[ShellSimpleCommand.Piece]]? {
        var words: [[ShellSimpleCommand.Piece]] = []
        var word = WordBuilder()
        while position < units.count {
            let unit = units[position]
            position += 1
            switch unit {
            case .placeholder(let name):
                word.add(name)
            case .byte(let byte):
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\t"):
                    if let finished = word.finish() { words.append(finished) }
                case UInt8(ascii: "\n"):
                    // Only trailing newlines: a second line would be a second command.
                    guard units[position...].allSatisfy(Self.isBlankOrNewline) else { return nil }
                    if let finished = word.finish() { words.append(finished) }
                    position = units.count
                case UInt8(ascii: "'"):
                    guard quoted(by: UInt8(ascii: "'"), refusing: [0], into: &word) else { return nil }
                case UInt8(ascii: "\""):
                    let refused: [UInt8] = [0, UInt8(ascii: "$"), UInt8(ascii: "`"), UInt8(ascii: "\\")]
                    guard quoted(by: UInt8(ascii: "\""), refusing: refused, into: &word) else { return nil }
                case UInt8(ascii: "\\"):
                    // `\x` is `x`; `\` before a newline is a line continuation, before a value refused.
                    guard position < units.count, case .byte(let escaped) = units[position], escaped != 0,
                        escaped != UInt8(ascii: "\n")
                    else { return nil }
                    position += 1
                    word.add(escaped)
                default:
                    guard Self.isPlainUnquoted(byte) else { return nil }
                    word.add(byte)
                }
            }
        }
        if let finished = word.finish() { words.append(finished) }
        return words
    }

    /// After an opening quote: literal up to the closing `quote`, as long as none of `refused`
    /// (what the shell would expand there, and NUL) comes first. Inside `'…'` nothing but NUL is
    /// refused; inside `"…"` also `$`, `` ` `` and `\`.
    private mutating func quoted(by quote: UInt8, refusing refused: [UInt8], into word: inout WordBuilder) -> Bool {
        word.markQuoted()
        while position < units.count {
            let unit = units[position]
            position += 1
            switch unit {
            case .placeholder(let name): word.add(name)
            case .byte(quote): return true
            case .byte(let byte) where refused.contains(byte): return false
            case .byte(let byte): word.add(byte)
            }
        }
        return false
    }

    /// Bytes that stand for themselves outside quotes in every POSIX shell and in bash: letters,
    /// digits, a few punctuation marks, and anything non-ASCII. `=` is only text after the command
    /// name (the name itself may hold none, so no word is an assignment). Left out on purpose:
    /// operators, `$`, `` ` ``, glob characters, `~`, `{`, `}`, `#`, `!`, control characters.
    private static func isPlainUnquoted(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ","),
            UInt8(ascii: "+"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "="):
            return true
        default:
            return byte >= 0x80
        }
    }

    private static func isBlankOrNewline(_ unit: Unit) -> Bool {
        unit == .byte(UInt8(ascii: " ")) || unit == .byte(UInt8(ascii: "\t")) || unit == .byte(UInt8(ascii: "\n"))
    }
}

/// A word being read: its pieces, and whether anything (even an empty `''`) started it.
private struct WordBuilder {
    private var pieces: [ShellSimpleCommand.Piece] = []
    private var text: [UInt8] = []
    private var started = false

    mutating func add(_ byte: UInt8) {
        started = true
        text.append(byte)
    }

    mutating func add(_ name: TemplateName) {
        started = true
        if !text.isEmpty { pieces.append(.literal(text)) }
        text = []
        pieces.append(.placeholder(name))
    }

    mutating func markQuoted() { started = true }

    /// The finished word, or nil when there was none (only blanks).
    mutating func finish() -> [ShellSimpleCommand.Piece]? {
        defer { self = WordBuilder() }
        guard started else { return nil }
        if !text.isEmpty || pieces.isEmpty { pieces.append(.literal(text)) }
        return pieces
    }
}
