/// Reads a `run:` command template as `/bin/sh` will, to learn where each `{{placeholder}}` stands.
///
/// A small POSIX-shell lexer (with the bash extensions a user might write: `$'…'`, `<(…)`,
/// `((…))`, `<<<`): quotes, escapes, words, operators, substitutions, comments and
/// here-documents. It does not execute or expand anything; it assigns each placeholder a
/// `ShellQuotingContext`, or refuses it where no quoting can make a value data:
///
/// - inside `$(…)`, backticks, `${…}`, `$((…))`, `((…))`, `<(…)`, `$'…'`, `$"…"`;
/// - inside a comment or a here-document (its delimiter or its body);
/// - right after an unescaped `$` or a `\` (the shell would join them with the value's first byte);
/// - as the name of the command to run;
/// - where the command given the value runs it as code: `eval`, `ssh`, `watch`, `trap`, `.`,
///   `source`, `alias`, the command string of `sh -c` (and bash, dash, zsh, ksh, su, runuser,
///   flock, script), the script a shell runs, interpreters' inline code (`python -c`, `perl -e`,
///   `ruby -e`, `node -e`, `php -r`) and awk programs.
///
/// It warns (the rule still loads) where a value begins a word before any `--`, so a value
/// starting with `-` would be an option, and where a value names a redirection's file.
///
/// The lexer is conservative: where it cannot follow the shell (a `case` inside `$(…)`, whose
/// `)` patterns end the substitution for a naive reader) every later placeholder is refused.
struct ShellLexer {
    private enum Unit {
        case scalar(Unicode.Scalar)
        case placeholder(Int)
    }

    private let units: [Unit]
    private let offsets: [Int]
    private var position = 0

    private(set) var contexts: [ShellQuotingContext]
    private(set) var issues: [ShellTemplateIssue] = []
    private var refused: Set<Int> = []
    private var names: [TemplateName]

    /// Whether `{{rule}}` stands for a name that cannot start with `-` or `+` (see `neverAnOption`
    /// and `ShellCommandTemplate.ruleNameIsNeverAnOption`).
    var ruleNameIsNeverAnOption = false

    /// Set once the lexer can no longer be sure how the shell reads the rest.
    private var lostTrack: String?
    private var pendingHereDocuments: [(delimiter: String, stripsTabs: Bool)] = []
    /// How many `$(…)` or `<(…)` the lexer is inside.
    private var substitutionDepth = 0

    init(_ template: Template) {
        var units: [Unit] = []
        var offsets: [Int] = []
        let scalars = Array(template.source.unicodeScalars)
        var index = 0
        var placeholder = 0
        while index < scalars.count {
            if placeholder < template.placeholderOffsets.count && index == template.placeholderOffsets[placeholder] {
                units.append(.placeholder(placeholder))
                offsets.append(index)
                // Skip to just past the closing `}}` (the template parser guarantees one).
                var end = index + 2
                while end + 1 < scalars.count && !(scalars[end] == "}" && scalars[end + 1] == "}") { end += 1 }
                index = end + 2
                placeholder += 1
            } else {
                units.append(.scalar(scalars[index]))
                offsets.append(index)
                index += 1
            }
        }
        self.units = units
        self.offsets = offsets
        self.contexts = Array(repeating: .unquoted, count: template.placeholderOffsets.count)
        self.names = template.names
    }

    /// Lexes the whole command.
    mutating func run() {
        var command = SimpleCommand()
        lexCommands(until: .end, refusing: nil, command: &command)
    }

    // MARK: - Command lists

    private enum Terminator {
        case end
        /// The `)` that closes `$(`, `<(` or `>(`.
        case closingParenthesis
    }

    /// What the shell is reading in the current simple command.
    private struct SimpleCommand {
        var atCommandPosition = true
        /// `for`, `case`, `select`, `function`: the words are data, not a command and arguments.
        var dataOnly = false
        var sawDoubleDash = false
        var commandName: String?
        var arguments = 0
        var codeArgument: CodeArgument?
        var redirection: Redirection?
    }

    private enum Redirection {
        case file
        case hereDocument(stripsTabs: Bool)
    }

    /// A command that runs one of its arguments as code.
    private enum CodeArgument {
        /// Every argument is code (`eval`, `ssh`, `watch`, `alias`).
        case every(String)
        /// The first operand is code (`trap`, `.`, `source`, awk's program).
        case firstOperand(String)
        /// A shell: with `-c` the next operand is a command string, without it a script to run.
        case shell(String, sawC: Bool)
        /// The word after one of these options is code (`python -c`, `perl -e`, `su -c`).
        case afterOption(String, options: Set<Character>, armed: Bool, firstOperandIsScript: Bool)
        /// The code argument has been seen; later ones are the code's own arguments.
        case positional
    }

    private struct Word {
        var started = false
        /// The text with quotes removed and placeholders left out.
        var text = ""
        /// The unquoted literal text before the first placeholder (for `NAME=` assignments).
        var literalPrefix = ""
        var placeholders: [Int] = []
        var startsWithPlaceholder = false
        var quoted = false

        /// A placeholder in this word: the word starts with it when no text came before, quoted or not.
        mutating func add(_ index: Int) {
            if text.isEmpty && placeholders.isEmpty { startsWithPlaceholder = true }
            started = true
            placeholders.append(index)
        }
    }

    private mutating func lexCommands(
        until terminator: Terminator, refusing reason: String?, command: inout SimpleCommand
    ) {
        var word = Word()
        var parentheses = 0
        if terminator == .closingParenthesis { substitutionDepth += 1 }
        defer { if terminator == .closingParenthesis { substitutionDepth -= 1 } }
        while let unit = peek() {
            switch unit {
            case .placeholder(let index):
                advance()
                word.add(index)
                // A value right after an unquoted `$` or `\` would be joined with it; see `dollar`.
                assign(index, .unquoted, refusing: reason)
            case .scalar(let c):
                switch c {
                case " ", "\t":
                    advance()
                    finish(&word, in: &command)
                case "\n":
                    advance()
                    finish(&word, in: &command)
                    command = SimpleCommand()
                    readHereDocuments()
                case ";", "&", "|":
                    advance()
                    finish(&word, in: &command)
                    command = SimpleCommand()
                case "(":
                    advance()
                    finish(&word, in: &command)
                    if command.atCommandPosition && peekScalar() == "(" {
                        // bash's arithmetic command `(( … ))`.
                        advance()
                        lexArithmetic(refusing: "inside an arithmetic expression '((…))'")
                    } else {
                        parentheses += 1
                        command = SimpleCommand()
                    }
                case ")":
                    advance()
                    finish(&word, in: &command)
                    command = SimpleCommand()
                    if parentheses == 0 && terminator == .closingParenthesis { return }
                    parentheses = max(0, parentheses - 1)
                case "<", ">":
                    if peekScalar(at: 1) == "(" {
                        // Process substitution `<(…)` / `>(…)` (bash).
                        advance(2)
                        word.started = true
                        var inner = SimpleCommand()
                        lexCommands(
                            until: .closingParenthesis, refusing: reason ?? "inside a process substitution '<(…)'",
                            command: &inner)
                        continue
                    }
                    redirection(&word, in: &command)
                case "#" where !word.started:
                    skipComment()
                case "\\":
                    advance()
                    word.started = true
                    switch peek() {
                    case .placeholder(let index):
                        refuse(index, "a value right after '\\' would have its first byte escaped instead of quoted")
                    case .scalar("\n"):
                        advance()  // a line continuation
                    case .scalar(let escaped):
                        advance()
                        word.text.unicodeScalars.append(escaped)
                        word.quoted = true
                    case nil:
                        break
                    }
                case "'":
                    advance()
                    word.started = true
                    word.quoted = true
                    lexSingleQuoted(&word, refusing: reason)
                case "\"":
                    advance()
                    word.started = true
                    word.quoted = true
                    lexDoubleQuoted(&word, refusing: reason)
                case "`":
                    advance()
                    word.started = true
                    lexBackticks(refusing: reason ?? "inside a command substitution '`…`'")
                case "$":
                    advance()
                    word.started = true
                    dollar(&word, refusing: reason, inDoubleQuotes: false)
                default:
                    advance()
                    word.started = true
                    word.text.unicodeScalars.append(c)
                    if word.placeholders.isEmpty && !word.quoted { word.literalPrefix.unicodeScalars.append(c) }
                }
            }
        }
        finish(&word, in: &command)
        readHereDocuments()
    }

    // MARK: - Words and simple commands

    private mutating func finish(_ word: inout Word, in command: inout SimpleCommand) {
        guard word.started else { return }
        defer { word = Word() }
        if let redirection = command.redirection {
            command.redirection = nil
            switch redirection {
            case .file:
                for index in word.placeholders {
                    warn(
                        index,
                        "a value names the file of a redirection, so the network chooses which file is read or written",
                        hint: "redirect to a fixed path, or use a 'write:' action")
                }
            case .hereDocument(let stripsTabs):
                for index in word.placeholders { refuse(index, "a value in a here-document's delimiter") }
                pendingHereDocuments.append((word.text, stripsTabs))
            }
            return
        }
        if command.dataOnly { return }
        if command.atCommandPosition {
            if word.placeholders.isEmpty || !word.literalPrefix.isEmpty, Self.isAssignment(word.literalPrefix) {
                return
            }
            if word.placeholders.isEmpty && !word.quoted {
                switch word.text {
                case "for", "case", "select", "function":
                    if word.text == "case" { noteCaseKeyword() }
                    command.dataOnly = true
                    return
                case "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done", "esac", "time":
                    return
                default: break
                }
            }
            command.atCommandPosition = false
            command.commandName = word.text
            for index in word.placeholders {
                refuse(index, "a value as the name of the command to run lets the network choose the program")
            }
            command.codeArgument = Self.codeArgument(of: word.text)
            return
        }
        argument(word, in: &command)
    }

    private mutating func argument(_ word: Word, in command: inout SimpleCommand) {
        command.arguments += 1
        let isOption = word.placeholders.isEmpty && (word.text.hasPrefix("-") || word.text.hasPrefix("+"))
        if let code = command.codeArgument {
            switch code {
            case .every(let name):
                for index in word.placeholders { refuse(index, "\(name) runs its arguments as shell code") }
                return
            case .firstOperand(let name):
                if isOption { return }
                for index in word.placeholders { refuse(index, "\(name) runs this argument as code") }
                command.codeArgument = .positional
                return
            case .shell(let name, let sawC):
                if isOption {
                    if !word.text.hasPrefix("--") && word.text.dropFirst().contains("c") {
                        command.codeArgument = .shell(name, sawC: true)
                    }
                    return
                }
                for index in word.placeholders {
                    refuse(
                        index,
                        sawC
                            ? "\(name) -c runs this argument as shell code" : "\(name) runs this argument as a script")
                }
                command.codeArgument = .positional
                return
            case .afterOption(let name, let options, let armed, let scriptFirst):
                if armed {
                    for index in word.placeholders { refuse(index, "\(name) runs this argument as code") }
                    command.codeArgument = .afterOption(
                        name, options: options, armed: false, firstOperandIsScript: false)
                    return
                }
                if word.text.hasPrefix("-") && !word.text.hasPrefix("--"), let last = word.text.last {
                    if word.placeholders.isEmpty {
                        if options.contains(last) {
                            command.codeArgument = .afterOption(
                                name, options: options, armed: true, firstOperandIsScript: false)
                        }
                        return
                    }
                    if word.text.dropFirst().contains(where: options.contains) {
                        for index in word.placeholders { refuse(index, "\(name) runs this option's value as code") }
                        return
                    }
                }
                if scriptFirst && !isOption {
                    for index in word.placeholders { refuse(index, "\(name) runs this argument as a script") }
                    command.codeArgument = .afterOption(
                        name, options: options, armed: false, firstOperandIsScript: false)
                    return
                }
            case .positional:
                return
            }
        } else if word.placeholders.isEmpty, let code = Self.codeArgument(of: word.text) {
            // `sudo sh -c …`, `env X=1 bash -c …`, `xargs eval`: the code runner is an argument.
            command.codeArgument = code
            return
        }
        if word.placeholders.isEmpty {
            if word.text == "--" { command.sawDoubleDash = true }
            return
        }
        if word.startsWithPlaceholder && !command.sawDoubleDash {
            // printf's arguments after its format are never options.
            if command.commandName.map(Self.baseName) == "printf" && command.arguments > 1 { return }
            let index = word.placeholders[0]
            if neverAnOption(names[index]) { return }
            let variable = names[index].environmentVariable
            warn(
                index,
                "a value that begins a word can be read as an option if it starts with '-' (an SSID such as '--output=FILE')",
                hint:
                    "put '--' before it, prefix it ('./{{\(names[index])}}' for a path), or read it from \"$\(variable)\""
            )
        }
    }

    /// Whether the value of `name` is one netrules itself defines and that cannot start with `-`
    /// or `+`: `{{edge}}` is `enter` or `exit`, `{{time}}` and `{{time.utc}}` RFC 3339 times (they start with the
    /// year's digits), and `{{rule}}` the rule's own name when it is known and starts with neither.
    /// Fact values are not among them: an observer plugin can report any text for any fact.
    func neverAnOption(_ name: TemplateName) -> Bool {
        switch name {
        case .edge, .time, .utcTime: true
        case .rule: ruleNameIsNeverAnOption
        case .fact, .environment: false
        }
    }

    private static func isAssignment(_ prefix: String) -> Bool {
        guard let equals = prefix.firstIndex(of: "=") else { return false }
        let name = prefix[..<equals]
        guard let first = name.unicodeScalars.first,
            first == "_" || ("A"..."Z").contains(first) || ("a"..."z").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
    }

    static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private static func codeArgument(of word: String) -> CodeArgument? {
        let name = baseName(word)
        switch name {
        case "eval", "ssh", "watch", "alias", "let":
            // `let` evaluates arithmetic, where bash runs `$(…)` in an array subscript.
            return .every(name)
        case "trap", ".", "source", "awk", "gawk", "mawk", "nawk", "busybox":
            return .firstOperand(name)
        case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish":
            return .shell(name, sawC: false)
        case "su", "runuser", "flock", "script":
            return .afterOption(name, options: ["c"], armed: false, firstOperandIsScript: false)
        default:
            if name.hasPrefix("python") {
                return .afterOption(name, options: ["c"], armed: false, firstOperandIsScript: true)
            }
            switch name {
            case "perl", "ruby", "node", "nodejs":
                return .afterOption(name, options: ["e", "E"], armed: false, firstOperandIsScript: true)
            case "php": return .afterOption(name, options: ["r"], armed: false, firstOperandIsScript: true)
            case "lua", "tclsh": return .afterOption(name, options: ["e"], armed: false, firstOperandIsScript: true)
            default: return nil
            }
        }
    }

    // MARK: - Quotes, escapes and substitutions

    private mutating func lexSingleQuoted(_ word: inout Word, refusing reason: String?) {
        let start = offsets[position - 1]
        while let unit = peek() {
            advance()
            switch unit {
            case .placeholder(let index):
                word.add(index)
                assign(index, .singleQuoted, refusing: reason)
            case .scalar("'"):
                return
            case .scalar(let c):
                word.text.unicodeScalars.append(c)
            }
        }
        unterminated("'", at: start)
    }

    private mutating func lexDoubleQuoted(_ word: inout Word, refusing reason: String?) {
        let start = offsets[position - 1]
        while let unit = peek() {
            advance()
            switch unit {
            case .placeholder(let index):
                word.add(index)
                assign(index, .doubleQuoted, refusing: reason)
            case .scalar("\""):
                return
            case .scalar("\\"):
                switch peek() {
                case .placeholder(let index):
                    refuse(index, "a value right after '\\' would have its first byte escaped instead of quoted")
                case .scalar(let escaped):
                    advance()
                    if !"$`\"\\\n".unicodeScalars.contains(escaped) { word.text += "\\" }
                    if escaped != "\n" { word.text.unicodeScalars.append(escaped) }
                case nil:
                    break
                }
            case .scalar("`"):
                lexBackticks(refusing: reason ?? "inside a command substitution '`…`'")
            case .scalar("$"):
                dollar(&word, refusing: reason, inDoubleQuotes: true)
            case .scalar(let c):
                word.text.unicodeScalars.append(c)
            }
        }
        unterminated("\"", at: start)
    }

    /// After an unquoted or double-quoted `$`.
    private mutating func dollar(_ word: inout Word, refusing reason: String?, inDoubleQuotes: Bool) {
        switch peek() {
        case .placeholder(let index):
            // `$` + `{x}` is `${x}`, `$` + `(reboot)` is `$(reboot)`: the value would finish an expansion.
            refuse(index, "a value right after '$' would become part of a parameter expansion or substitution")
        case .scalar("("):
            advance()
            if peekScalar() == "(" {
                advance()
                lexArithmetic(refusing: reason ?? "inside an arithmetic expansion '$((…))'")
            } else {
                var inner = SimpleCommand()
                lexCommands(
                    until: .closingParenthesis, refusing: reason ?? "inside a command substitution '$(…)'",
                    command: &inner)
            }
        case .scalar("{"):
            advance()
            lexBraces(refusing: reason ?? "inside a parameter expansion '${…}'")
        case .scalar("[") where !inDoubleQuotes:
            // bash's old arithmetic `$[…]` (a bash /bin/sh reads it): up to the matching `]`.
            advance()
            var depth = 0
            while let unit = peek() {
                advance()
                if case .placeholder(let index) = unit {
                    refuse(index, reason ?? "inside an arithmetic expansion '$[…]'")
                }
                if case .scalar("[") = unit { depth += 1 }
                if case .scalar("]") = unit {
                    if depth == 0 { break }
                    depth -= 1
                }
            }
        case .scalar("'") where !inDoubleQuotes:
            advance()
            lexANSIQuoted(refusing: reason ?? "inside bash's '$'…'' quotes, which interpret backslash escapes")
        case .scalar("\"") where !inDoubleQuotes:
            advance()
            var inner = Word()
            lexDoubleQuoted(&inner, refusing: reason ?? "inside bash's '$\"…\"' quotes")
            word.text += inner.text
        default:
            word.text += "$"
        }
    }

    private mutating func lexBackticks(refusing reason: String) {
        let start = offsets[position - 1]
        while let unit = peek() {
            advance()
            switch unit {
            case .placeholder(let index): refuse(index, reason)
            case .scalar("\\"): if case .scalar = peek() { advance() }
            case .scalar("`"): return
            case .scalar: break
            }
        }
        unterminated("`", at: start)
    }

    /// `${…}`: quotes and nested expansions may hold a `}`.
    private mutating func lexBraces(refusing reason: String) {
        let start = offsets[position - 1]
        var scratch = Word()
        while let unit = peek() {
            advance()
            switch unit {
            case .placeholder(let index): refuse(index, reason)
            case .scalar("}"): return
            case .scalar("\\"): if case .scalar = peek() { advance() }
            case .scalar("'"): lexSingleQuoted(&scratch, refusing: reason)
            case .scalar("\""): lexDoubleQuoted(&scratch, refusing: reason)
            case .scalar("`"): lexBackticks(refusing: reason)
            case .scalar("$"): dollar(&scratch, refusing: reason, inDoubleQuotes: false)
            case .scalar: break
            }
        }
        unterminated("${", at: start)
    }

    /// `$((…))` and `((…))`: up to the `))` that balances them.
    private mutating func lexArithmetic(refusing reason: String) {
        let start = offsets[position - 1]
        var depth = 0
        var scratch = Word()
        while let unit = peek() {
            advance()
            switch unit {
            case .placeholder(let index): refuse(index, reason)
            case .scalar("("): depth += 1
            case .scalar(")"):
                if depth == 0 {
                    if peekScalar() == ")" { advance() }
                    return
                }
                depth -= 1
            case .scalar("$"): dollar(&scratch, refusing: reason, inDoubleQuotes: false)
            case .scalar("`"): lexBackticks(refusing: reason)
            case .scalar("'"): lexSingleQuoted(&scratch, refusing: reason)
            case .scalar("\""): lexDoubleQuoted(&scratch, refusing: reason)
            case .scalar: break
            }
        }
        unterminated("((", at: start)
    }

    /// bash's `$'…'`, where a backslash escapes the next character (including `'`).
    private mutating func lexANSIQuoted(refusing reason: String) {
        let start = offsets[position - 1]
        while let unit = peek() {
            advance()
            switch unit {
            case .placeholder(let index): refuse(index, reason)
            case .scalar("\\"):
                if case .placeholder(let index) = peek() {
                    refuse(index, reason)
                    advance()
                } else if peek() != nil {
                    advance()
                }
            case .scalar("'"): return
            case .scalar: break
            }
        }
        unterminated("$'", at: start)
    }

    private mutating func skipComment() {
        while let unit = peek() {
            switch unit {
            case .scalar("\n"): return
            case .placeholder(let index):
                // A newline in the value would end the comment and start a command.
                refuse(index, "a value inside a comment (a newline in it would end the comment and start a command)")
            case .scalar: break
            }
            advance()
        }
    }

    /// `<`, `>`, `>>`, `<<`, `<<-`, `<<<`, `<&`, `>&`, `<>`, `>|`, `&>` with an optional fd number before.
    private mutating func redirection(_ word: inout Word, in command: inout SimpleCommand) {
        // `2>file`: a word of digits right before the operator is its file descriptor, not an argument.
        if word.started && word.placeholders.isEmpty && !word.quoted && !word.text.isEmpty
            && word.text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) })
        {
            word = Word()
        } else {
            finish(&word, in: &command)
        }
        guard case .scalar(let first) = peek() else { return }
        advance()
        var kind = Redirection.file
        if first == "<" && peekScalar() == "<" {
            advance()
            if peekScalar() == "<" {
                advance()  // `<<<`: a here-string, an ordinary word
            } else if peekScalar() == "-" {
                advance()
                kind = .hereDocument(stripsTabs: true)
            } else {
                kind = .hereDocument(stripsTabs: false)
            }
        } else if let next = peekScalar(), next == ">" || next == "&" || next == "|" {
            advance()
        }
        command.redirection = kind
        // Blanks between the operator and its word are skipped by the caller's word splitting;
        // the next finished word is the target.
    }

    /// At a newline: the bodies of the here-documents opened on the line just read.
    private mutating func readHereDocuments() {
        let documents = pendingHereDocuments
        pendingHereDocuments = []
        for document in documents {
            while peek() != nil {
                var line = ""
                var placeholders: [Int] = []
                while let unit = peek() {
                    advance()
                    if case .scalar("\n") = unit { break }
                    switch unit {
                    case .scalar(let c): line.unicodeScalars.append(c)
                    case .placeholder(let index): placeholders.append(index)
                    }
                }
                for index in placeholders {
                    refuse(index, "a value inside a here-document, where the shell expands '$(…)' and backticks")
                }
                let text = document.stripsTabs ? String(line.drop { $0 == "\t" }) : line
                if placeholders.isEmpty && text == document.delimiter { break }
            }
        }
    }

    /// Only `case` confuses the parenthesis count (its patterns end with a lone `)`), and only
    /// inside a substitution, which that `)` would end for this lexer but not for the shell.
    private mutating func noteCaseKeyword() {
        if lostTrack == nil && substitutionDepth > 0 {
            lostTrack = "after a 'case' inside '$(…)', where netrules cannot follow the shell's parentheses"
        }
    }

    // MARK: - Findings

    private mutating func assign(_ index: Int, _ context: ShellQuotingContext, refusing reason: String?) {
        contexts[index] = context
        if let reason = reason ?? lostTrack { refuse(index, reason) }
    }

    private mutating func refuse(_ index: Int, _ message: String) {
        guard refused.insert(index).inserted else { return }
        let name = names[index]
        issues.append(
            ShellTemplateIssue(
                .error, "'{{\(name)}}' cannot be made safe here: \(message)", offset: offsetOfPlaceholder(index),
                hint: "pass the value as data instead: \"$\(name.environmentVariable)\" in the command")
        )
    }

    private mutating func warn(_ index: Int, _ message: String, hint: String) {
        guard !refused.contains(index) else { return }
        issues.append(ShellTemplateIssue(.warning, message, offset: offsetOfPlaceholder(index), hint: hint))
    }

    private mutating func unterminated(_ opening: String, at offset: Int) {
        issues.append(
            ShellTemplateIssue(
                .error, "the command has an unterminated '\(opening)'; /bin/sh would refuse to run it", offset: offset))
    }

    private func offsetOfPlaceholder(_ index: Int) -> Int {
        for (i, unit) in units.enumerated() { if case .placeholder(index) = unit { return offsets[i] } }
        return 0
    }

    // MARK: - Reading

    private func peek() -> Unit? { position < units.count ? units[position] : nil }

    private func peekScalar(at distance: Int = 0) -> Unicode.Scalar? {
        let index = position + distance
        guard index < units.count, case .scalar(let c) = units[index] else { return nil }
        return c
    }

    private mutating func advance(_ count: Int = 1) { position += count }
}
