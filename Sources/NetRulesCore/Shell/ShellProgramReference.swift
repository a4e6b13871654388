/// A file a `run:` command's text says it runs: its program, or the script that program reads.
///
/// The daemon refuses, as root, a program or script others can change (docs/security.md); `check`
/// warns at `offset`, the runner fails the action. Both read the command's text the same way,
/// with `ShellProgramReference.references(in:)`:
///
/// - Only the first command of the line is read, and only words written literally (letters,
///   digits, `-_./,+:@%=` and non-ASCII): a word with a quote, a placeholder, an expansion or a
///   glob ends the reading, since its value is known only to the shell.
/// - Leading `NAME=value` assignments are skipped; `exec` and `command` (with their options) name
///   the program after them; `.` and `source` name a script. Any other shell builtin or keyword
///   runs no file of its own.
/// - After an interpreter (`sh`, `bash`, `python3`, `perl`, … by its file name), the first word
///   after its options is the script it runs, unless an option makes it read its program from
///   the command line (`-c`, `-e`, `-m`, …) or from standard input (`-s`).
public struct ShellProgramReference: Hashable, Sendable {
    /// What the file is to the command.
    public enum Role: Hashable, Sendable {
        /// The program the shell (or the runner) executes: a name searched on `PATH`, or a path.
        case program
        /// A file an interpreter reads and runs; a path relative to the working directory.
        case script
    }

    /// The word as written: a name without `/` (a program looked up on `PATH`) or a path.
    public var word: String
    /// Where the word starts in the command's source, in Unicode scalars.
    public var offset: Int
    /// Whether it is the program or a script.
    public var role: Role

    /// Creates a reference to `word`, found at `offset` of the command's source.
    public init(word: String, offset: Int, role: Role) {
        self.word = word
        self.offset = offset
        self.role = role
    }

    /// The shells among `interpreters`, whose options are clusters (`-ec`).
    public static let shells: Set<String> = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"]
    /// Interpreters whose first argument after the options is a script file, by file name.
    public static let interpreters: Set<String> = shells.union([
        "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "tclsh",
    ])

    /// The program and script `command`'s text names, in order; none when it names none literally.
    public static func references(in command: ShellCommandTemplate) -> [ShellProgramReference] {
        var words = LeadingWords(command.source)
        var word = words.next()
        while let current = word, isAssignment(current.text) { word = words.next() }
        guard var program = word else { return [] }
        while program.text == "exec" || program.text == "command" {
            word = words.next()
            while let current = word, current.text.hasPrefix("-") { word = words.next() }
            guard let next = word else { return [] }
            program = next
        }
        if program.text == "." || program.text == "source" {
            guard let script = words.next(), script.text.contains("/") else { return [] }
            return [ShellProgramReference(word: script.text, offset: script.offset, role: .script)]
        }
        if !program.text.contains("/") && ShellSimpleCommand.shellOwnNames.contains(program.text) { return [] }
        var found = [ShellProgramReference(word: program.text, offset: program.offset, role: .program)]
        let name = String(program.text.split(separator: "/").last ?? "")
        guard interpreters.contains(name) else { return found }
        while let argument = words.next() {
            if argument.text == "--" {
                if let script = words.next() {
                    found.append(ShellProgramReference(word: script.text, offset: script.offset, role: .script))
                }
                break
            }
            if argument.text.hasPrefix("-") {
                if readsNoScript(argument.text, shell: shells.contains(name)) { break }
                continue
            }
            found.append(ShellProgramReference(word: argument.text, offset: argument.offset, role: .script))
            break
        }
        return found
    }

    /// Whether an interpreter's option makes it run a program from its arguments or standard
    /// input rather than a script file: a shell's `-c` or `-s` (alone or in a cluster such as
    /// `-ec`), and `-c`, `-e`, `-E`, `-m`, `-r` of the others (Python, Perl, Ruby, Node, PHP).
    private static func readsNoScript(_ option: String, shell: Bool) -> Bool {
        if option.hasPrefix("--") { return false }
        if shell { return option.contains("c") || option.contains("s") }
        return ["-c", "-e", "-E", "-m", "-r"].contains { option.hasPrefix($0) }
    }

    /// `NAME=value` with a shell name: an assignment before the command.
    private static func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
        let name = word[..<equals].unicodeScalars
        guard let first = name.first, first == "_" || isLetter(first) else { return false }
        return name.allSatisfy { $0 == "_" || isLetter($0) || ("0"..."9").contains($0) }
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}

/// The literal words at the start of a command line, up to its first operator, newline or a word
/// only the shell can read.
private struct LeadingWords {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var ended = false

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    /// The next word and its offset, or nil at the end of what can be read.
    mutating func next() -> (text: String, offset: Int)? {
        guard !ended else { return nil }
        while position < scalars.count, scalars[position] == " " || scalars[position] == "\t" { position += 1 }
        let start = position
        var text = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == " " || scalar == "\t" { break }
            if Self.endsCommand(scalar) {
                ended = true
                break
            }
            guard Self.isPlain(scalar) else {
                // A quote, a placeholder, an expansion or a glob: its value is the shell's business.
                ended = true
                return nil
            }
            text.append(scalar)
            position += 1
        }
        if position >= scalars.count { ended = true }
        return text.isEmpty ? nil : (String(text), start)
    }

    /// The shell's operators and a newline end the first command.
    private static func endsCommand(_ scalar: Unicode.Scalar) -> Bool {
        ["\n", ";", "|", "&", "<", ">", "(", ")"].contains(scalar)
    }

    /// What stands for itself outside quotes (as `ShellSimpleCommand` reads it).
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value >= 0x80 { return true }
        if ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) {
            return true
        }
        return ["-", "_", ".", "/", ",", "+", ":", "@", "%", "="].contains(scalar)
    }
}
