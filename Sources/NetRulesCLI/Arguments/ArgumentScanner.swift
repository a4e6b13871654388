import NetRulesCore

/// Walks one command line left to right, descending into subcommands and collecting values and errors.
///
/// Errors are collected rather than thrown at once because a help request wins over any error anywhere on the line
/// (`netrules simulate --bogus --help` shows help, as in swift-argument-parser): the user asking for help is
/// usually the user who got the command line wrong. Not thread-safe; one scanner parses one command line.
struct ArgumentScanner {
    private let arguments: [String]
    private var index = 0
    private var stack: [CommandSpec]
    private var optionValues: [String: [String]] = [:]
    private var flagCounts: [String: Int] = [:]
    private var positionals: [String] = []
    private var wantsHelp = false
    private var wantsVersion = false
    private var scanErrors: [(isUnknownName: Bool, error: UsageError)] = []

    /// Creates a scanner for `arguments` (without `argv[0]`) against the tree under `root`.
    init(root: CommandSpec, arguments: [String]) {
        self.stack = [root]
        self.arguments = arguments
    }

    private var command: CommandSpec { stack[stack.count - 1] }

    private var commandPath: [String] { stack.map(\.name) }

    /// Scans the whole command line and decides the outcome.
    mutating func scan() throws(UsageError) -> ParseOutcome {
        let root = stack[0]
        if !root.subcommands.isEmpty {
            if arguments.isEmpty {
                return .help(commandPath: [root.name])
            }
            if arguments[0] == "help", root.subcommand(named: "help") == nil {
                return .help(commandPath: Self.helpPath(root: root, names: arguments.dropFirst()))
            }
        }
        var afterTerminator = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if afterTerminator {
                positionals.append(token)
            } else if token == "--" {
                afterTerminator = true
            } else if token.hasPrefix("--") {
                scanLongOption(token)
            } else if token.hasPrefix("-"), token.count > 1 {
                scanShortOptions(token)
            } else {
                scanPositional(token)
            }
        }
        return try finish()
    }

    /// The path `help A B …` names: the longest prefix of `names` that is a chain of subcommands.
    ///
    /// Like argument-parser, anything after the first name that is not a subcommand is ignored.
    private static func helpPath(root: CommandSpec, names: ArraySlice<String>) -> [String] {
        var current = root
        var path = [root.name]
        for name in names {
            guard let next = current.subcommand(named: name) else { break }
            path.append(name)
            current = next
        }
        return path
    }

    private mutating func finish() throws(UsageError) -> ParseOutcome {
        if wantsHelp {
            return .help(commandPath: commandPath)
        }
        if wantsVersion {
            return .version
        }
        // Misspelled names are reported first: every other error is likely a consequence of one.
        if let first = scanErrors.first(where: \.isUnknownName) ?? scanErrors.first {
            throw first.error
        }
        if !command.subcommands.isEmpty, command.arguments.isEmpty, positionals.isEmpty {
            return .help(commandPath: commandPath)
        }
        let (bound, extra) = try bindPositionals()
        try checkRequiredOptions()
        switch extra.count {
        case 0:
            break
        case 1:
            throw UsageError(message: "Unexpected argument '\(extra[0])'", commandPath: commandPath)
        default:
            let list = extra.map { "'\($0)'" }.joined(separator: ", ")
            throw UsageError(message: "\(extra.count) unexpected arguments: \(list)", commandPath: commandPath)
        }
        var defaults: [String: String] = [:]
        var declared: Set<String> = []
        for spec in stack {
            for option in spec.options {
                declared.insert(option.long)
                defaults[option.long] = option.defaultValue
            }
            declared.formUnion(spec.arguments.map(\.name))
        }
        return .run(
            ParsedArguments(
                commandPath: commandPath,
                optionValues: optionValues,
                flagCounts: flagCounts,
                positionalValues: bound,
                defaultValues: defaults,
                declaredNames: declared
            )
        )
    }

    // MARK: Options

    private mutating func scanLongOption(_ token: String) {
        let body = token.dropFirst(2)
        let name: Substring
        let inlineValue: Substring?
        if let equals = body.firstIndex(of: "=") {
            name = body[..<equals]
            inlineValue = body[body.index(after: equals)...]
        } else {
            name = body
            inlineValue = nil
        }
        let spelled = "--\(name)"
        if name == "help" {
            wantsHelp = true
            return
        }
        if name == "version", stack.count == 1 {
            wantsVersion = true
            return
        }
        guard let option = command.options.first(where: { $0.isSpelled(String(name)) }) else {
            recordUnknownLongOption(spelled)
            return
        }
        guard option.takesValue else {
            if let inlineValue {
                record(
                    "The option '\(spelled)' does not take any value, but '\(inlineValue)' was specified."
                )
            } else {
                flagCounts[option.long, default: 0] += 1
            }
            return
        }
        if let inlineValue {
            accept(String(inlineValue), for: option, spelledAs: spelled)
        } else {
            takeNextValue(for: option, spelledAs: spelled)
        }
    }

    private mutating func scanShortOptions(_ token: String) {
        var letters = token.dropFirst()
        while let letter = letters.popFirst() {
            if letter == "h" {
                wantsHelp = true
                continue
            }
            let spelled = "-\(letter)"
            guard let option = command.options.first(where: { $0.short == letter }) else {
                // argument-parser suggests only long names: one letter is too short to judge closeness by.
                record("Unknown option '\(spelled)'", isUnknownName: true)
                continue
            }
            guard option.takesValue else {
                flagCounts[option.long, default: 0] += 1
                continue
            }
            // A value-taking option ends the group: the rest of the token, if any, is its value (`-c3`, `-vc3`).
            if letters.isEmpty {
                takeNextValue(for: option, spelledAs: spelled)
            } else {
                accept(String(letters), for: option, spelledAs: spelled)
            }
            return
        }
    }

    private mutating func takeNextValue(for option: OptionSpec, spelledAs spelled: String) {
        guard index < arguments.count, canBeValue(arguments[index]) else {
            record(
                "Missing value for '\(option.synopsis(spelledAs: spelled))'",
                helpLine: option.helpLine(spelledAs: spelled)
            )
            return
        }
        let value = arguments[index]
        index += 1
        accept(value, for: option, spelledAs: spelled)
    }

    /// Whether `token` may serve as the value of the option before it.
    ///
    /// A value may start with a dash (`-W -1`), but not when it reads as an option of this command: then the user
    /// forgot the value, and `--timeline --json` should say so rather than replay a file called `--json`.
    private func canBeValue(_ token: String) -> Bool {
        if token.hasPrefix("--") {
            return false
        }
        guard token.hasPrefix("-"), token.count > 1 else {
            return true
        }
        let letter = token[token.index(after: token.startIndex)]
        return letter != "h" && !command.options.contains { $0.short == letter }
    }

    private mutating func accept(_ value: String, for option: OptionSpec, spelledAs spelled: String) {
        if let allowed = option.allowedValues, !allowed.contains(value) {
            record(
                "The value '\(value)' is invalid for '\(option.synopsis(spelledAs: spelled))'"
                    + Self.allowedValuesSentence(allowed),
                helpLine: option.helpLine(spelledAs: spelled)
            )
            return
        }
        optionValues[option.long, default: []].append(value)
    }

    /// argument-parser's list of valid values: "'a' and 'b'", "'a', 'b' or 'c'", or a bulleted list from six on.
    private static func allowedValuesSentence(_ allowed: [String]) -> String {
        guard !allowed.isEmpty else { return "" }
        let quoted = allowed.map { "'\($0)'" }
        switch quoted.count {
        case 1...2:
            return ". Please provide one of \(quoted.joined(separator: " and "))."
        case 3...5:
            let leading = quoted.dropLast().joined(separator: ", ")
            return ". Please provide one of \(leading) or \(quoted[quoted.count - 1])."
        default:
            return ". Please provide one of the following:\n" + allowed.map { "  - \($0)" }.joined(separator: "\n")
        }
    }

    private mutating func recordUnknownLongOption(_ spelled: String) {
        var candidates = command.options.map { "--\($0.long)" }
        if stack.count == 1 {
            candidates.append("--version")
        }
        candidates.append("--help")
        var message = "Unknown option '\(spelled)'"
        let name = spelled.drop { $0 == "-" }.split(separator: "=").first.map(String.init) ?? ""
        if let argument = command.arguments.first(where: { $0.name == name }) {
            // `explain --rule office`: the user knows the word, not that it is an argument.
            message += ". '\(argument.name)' is an argument, not an option: write it without '--'"
        } else if let suggestion = EditDistance.closest(to: spelled, among: candidates, limitedByLength: false),
            EditDistance.between(spelled, suggestion) < max(2, spelled.count / 2)
        {
            message += ". Did you mean '\(suggestion)'?"
        }
        record(message, isUnknownName: true)
    }

    // MARK: Positionals

    private mutating func scanPositional(_ token: String) {
        // After a help request, argument-parser shows help for the command reached so far (`netrules --help check`
        // is the root's help), so later words no longer select subcommands.
        if !command.subcommands.isEmpty, positionals.isEmpty, !wantsHelp {
            if let subcommand = command.subcommand(named: token) {
                stack.append(subcommand)
                return
            }
            if command.arguments.isEmpty {
                var message = "Unknown subcommand '\(token)'"
                if let suggestion = EditDistance.closest(
                    to: token, among: command.subcommands.map(\.name), limitedByLength: false)
                {
                    message += ". Did you mean '\(suggestion)'?"
                }
                record(message, isUnknownName: true)
            }
        }
        // Kept even after an unknown subcommand, so later words are not taken as subcommand names.
        positionals.append(token)
    }

    /// Binds the positional values to the command's arguments in declaration order.
    ///
    /// A repeating or optional argument leaves enough values for the required arguments after it.
    ///
    /// - Returns: The values per argument name, and the values left over.
    private func bindPositionals() throws(UsageError) -> (bound: [String: [String]], extra: [String]) {
        var remaining = positionals[...]
        var bound: [String: [String]] = [:]
        let specs = command.arguments
        for (offset, argument) in specs.enumerated() {
            let neededLater = specs[(offset + 1)...].filter { !$0.isOptional }.count
            let spare = max(remaining.count - neededLater, 0)
            var take = argument.isRepeating ? spare : min(spare, 1)
            if !argument.isOptional {
                take = max(take, min(remaining.count, 1))
            }
            if take == 0 {
                if argument.isOptional {
                    continue
                }
                throw UsageError(
                    message: "Missing expected argument '\(argument.requiredSynopsis)'",
                    commandPath: commandPath,
                    helpLine: argument.helpLine
                )
            }
            bound[argument.name] = Array(remaining.prefix(take))
            remaining = remaining.dropFirst(take)
        }
        return (bound, Array(remaining))
    }

    private func checkRequiredOptions() throws(UsageError) {
        for spec in stack {
            for option in spec.options where option.isRequired {
                guard optionValues[option.long] == nil, flagCounts[option.long] == nil else { continue }
                var synopsis = option.synopsis(spelledAs: "--\(option.long)")
                if option.isRepeating {
                    synopsis += " ..."
                }
                throw UsageError(
                    message: "Missing expected argument '\(synopsis)'",
                    commandPath: commandPath,
                    helpLine: option.helpLine(spelledAs: "--\(option.long)")
                )
            }
        }
    }

    // MARK: Errors

    private mutating func record(_ message: String, helpLine: String? = nil, isUnknownName: Bool = false) {
        let error = UsageError(message: message, commandPath: commandPath, helpLine: helpLine)
        scanErrors.append((isUnknownName, error))
    }
}
