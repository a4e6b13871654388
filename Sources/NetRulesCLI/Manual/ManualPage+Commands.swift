extension ManualPage {
    /// `netrules.1`: the command reference, written from the same command specification as `--help`.
    ///
    /// Each command's subsection carries its usage, abstract, discussion, arguments and options in the words
    /// `--help` uses (options with their `(values: …; default: …)`), so the page cannot say something the help
    /// does not. The sections around them (exit status, environment, files) state the conventions of every
    /// command.
    ///
    /// - Parameter root: The root of the command tree, `netrules`.
    static func commandReference(root: CommandSpec) -> ManualPage {
        var page = ManualPage()
        page.macro("Dd", date)
        page.macro("Dt", root.name.uppercased(), "1")
        page.macro("Os")
        page.macro("Sh", "NAME")
        page.macro("Nm", root.name)
        page.macro("Nd", summary(root.abstract))

        page.macro("Sh", "SYNOPSIS")
        page.macro("Nm")
        page.rawMacro("Ar", ["subcommand"])
        page.rawMacro("Op", ["Ar", "options"])
        page.rawMacro("Op", ["Ar", "arguments"])
        page.macro("Nm")
        page.rawMacro("Cm", ["help", "Op", "Ar", "subcommand"])
        page.macro("Nm")
        page.rawMacro("Fl", ["-version"])

        page.macro("Sh", "DESCRIPTION")
        page.paragraphs(root.abstract)
        if let discussion = root.discussion {
            page.macro("Pp")
            page.paragraphs(discussion)
        }
        page.macro("Pp")
        page.text(
            ManualText([
                .plain(
                    """
                    Every command takes -h or --help, which prints its help; netrules help COMMAND prints the \
                    same. Options may come before, after and between arguments; \

                    """),
                .code("--"), .plain(" ends them."),
            ]))
        page.options(root.options + [.builtInVersion, .builtInHelp], arguments: root.arguments)
        page.commands(root.subcommands, parents: [root.name])

        page.taggedSection("ENVIRONMENT", mark: "Ev", items: environment)
        page.taggedSection("FILES", mark: "Pa", items: files)
        page.taggedSection("EXIT STATUS", items: exitStatuses)

        page.macro("Sh", "EXAMPLES")
        for (index, (meaning, command)) in examples.enumerated() {
            if index > 0 { page.macro("Pp") }
            page.text(ManualText(plain: meaning))
            page.macro("Pp")
            page.macro("Dl", command)
        }

        page.macro("Sh", "SEE ALSO")
        page.rawMacro("Xr", ["journalctl", "1", ",", "Xr", "systemctl", "1", ",", "Xr", "netrules-rules", "5"])
        return page
    }

    /// The subsections of `commands` and of their own subcommands, depth first.
    private mutating func commands(_ commands: [CommandSpec], parents: [String]) {
        for command in commands {
            let path = parents + [command.name]
            macro("Ss", path.dropFirst().joined(separator: " "))
            macro("Nm")
            rawMacro("Cm", path.dropFirst().map(Self.argument))
            // One element a line: `Op` extends to the end of its line, so two on one line would nest.
            for element in Self.synopsis(of: command) {
                rawMacro(element[0], Array(element.dropFirst()))
            }
            macro("Pp")
            paragraphs(command.abstract)
            if let discussion = command.discussion, !discussion.isEmpty {
                macro("Pp")
                paragraphs(discussion)
            }
            options(command.options, arguments: command.arguments)
            if !command.subcommands.isEmpty {
                self.commands(command.subcommands, parents: path)
            }
        }
    }

    /// The usage of `command` after its name, as `--help`'s USAGE line orders it (arguments, then options), one
    /// macro line's words per element.
    private static func synopsis(of command: CommandSpec) -> [[String]] {
        var elements: [[String]] = []
        for argument in command.arguments {
            var words = ["Ar", Self.argument(argument.name)]
            if argument.isRepeating { words.append("...") }
            elements.append(argument.isOptional ? ["Op"] + words : words)
        }
        for option in command.options {
            var words = ["Fl", Self.argument("-" + option.long)]
            if let value = option.valueName { words += ["Ar", Self.argument(value)] }
            if option.isRepeating { words.append("...") }
            elements.append(option.isRequired ? words : ["Op"] + words)
        }
        if !command.subcommands.isEmpty { elements.append(["Ar", "subcommand"]) }
        return elements
    }

    /// A tagged list of the arguments and options, each described exactly as `--help` describes it.
    private mutating func options(_ options: [OptionSpec], arguments: [ArgumentSpec]) {
        guard !options.isEmpty || !arguments.isEmpty else { return }
        macro("Bl", "-tag", "-width", "Ds")
        for argument in arguments {
            rawMacro("It", ["Ar", Self.argument(argument.name)])
            text(ManualText(plain: argument.help))
        }
        for option in options {
            var head: [String] = []
            if let short = option.short { head += ["Fl", Self.argument(String(short)), ","] }
            head += ["Fl", Self.argument("-" + option.long)]
            if let value = option.valueName { head += ["Ar", Self.argument(value)] }
            rawMacro("It", head)
            text(ManualText(plain: option.helpDescription))
        }
        macro("El")
    }

    /// Help text whose blank lines separate paragraphs.
    private mutating func paragraphs(_ text: String) {
        let paragraphs = text.split(separator: "\n\n", omittingEmptySubsequences: true)
        for (index, paragraph) in paragraphs.enumerated() {
            if index > 0 { macro("Pp") }
            self.text(ManualText(plain: String(paragraph)))
        }
    }

    /// An abstract as `.Nd` wants it: lower-case start, no final full stop.
    private static func summary(_ abstract: String) -> String {
        var text = abstract
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// The environment variables netrules reads, with what each changes.
    private static let environment: [(String, String)] = [
        ("COLUMNS", "The width help text and doctor's lines are wrapped to; else the terminal's width, else 80."),
        (
            "HOME",
            "Where ~ in write: paths and the per-user defaults (~/.config/netrules, ~/.local/state/netrules) point."
        ),
        ("XDG_CONFIG_HOME", "For a user other than root, the rules are read from $XDG_CONFIG_HOME/netrules."),
        ("XDG_STATE_HOME", "For a user other than root, the state directory is $XDG_STATE_HOME/netrules."),
        (
            "XDG_RUNTIME_DIR",
            "For a user other than root, the control socket is $XDG_RUNTIME_DIR/netrules/control.sock."
        ),
        ("PATH", "Where run: actions find their commands and where plugins are looked for after the plugins: list."),
        (
            "TZ",
            "The time zone of time: conditions, once_per:, {{time}} and the local times simulate shows; {{time.utc}}, the history and the outbox are in UTC."
        ),
        (
            "NOTIFY_SOCKET",
            "Set by systemd for a Type=notify service: run reports readiness, reloads and shutdown through it."
        ),
        ("JOURNAL_STREAM", "Set by systemd when standard error goes to the journal: log lines then carry no time."),
        ("DBUS_SYSTEM_BUS_ADDRESS", "The system bus on which NetworkManager is looked for."),
        (
            "NO_COLOR",
            "When set to anything non-empty, no colour; otherwise error, warning, ok, edges and verdicts are coloured when the output is a terminal (no-color.org)."
        ),
        (
            "CLICOLOR_FORCE",
            "When set to anything but 0 (and NO_COLOR is not), colour even when the output is not a terminal."
        ),
    ]

    /// The files and directories netrules uses, and the ones the Debian package installs.
    private static let files: [(String, String)] = [
        (
            "/etc/netrules/",
            "The system daemon's rules: every *.yaml and *.yml file, owned by root and not writable by others."
        ),
        (
            "/etc/netrules/environment",
            "NAME=value lines the system unit passes to the daemon, for {{env.NAME}} in webhooks."
        ),
        ("/var/lib/netrules/", "The system daemon's state: rule state that survives a restart and the webhook outbox."),
        (
            "/run/netrules/control.sock",
            "The system daemon's control socket, used by status, watch, explain, facts, history, rules and reload."
        ),
        ("~/.config/netrules/", "A user daemon's rules."),
        ("~/.local/state/netrules/", "A user daemon's state."),
        (
            "/lib/systemd/system/netrules.service",
            "The system unit; /usr/lib/systemd/user/netrules.service is the user unit."
        ),
        ("/usr/share/doc/netrules/examples/", "Ready-to-use rules, timelines for simulate, plugins and the demo."),
    ]

    /// The documented exit statuses (STYLE §22).
    private static let exitStatuses: [(String, String)] = [
        ("0", "Success; also run after a clean shutdown on SIGTERM or SIGINT."),
        ("1", "A runtime failure."),
        ("2", "portal only: a captive portal intercepts the probes."),
        ("3", "portal only: offline, no probe got a conclusive answer."),
        ("64", "A usage error: an unknown command or option, a missing argument, a bad option value."),
        (
            "65",
            "Invalid rule or timeline files (check, run, simulate, reload, and explain and rules without a daemon)."
        ),
        ("66", "A rule file, timeline or certificate that is missing or unreadable."),
    ]

    private static let examples: [(String, String)] = [
        (
            "Check the system rules, then make the daemon read them again:",
            "netrules check /etc/netrules && netrules reload"
        ),
        (
            "Replay a day at the office through a shipped rule, without a network, in /usr/share/doc/netrules/examples:",
            "netrules simulate rules/office-check-in.yaml -t timelines/office-day.yaml"
        ),
        ("Show why a rule is or is not true now:", "netrules explain office-check-in"),
        ("List every rule with its truth, what it waits for and when it last fired:", "netrules rules"),
    ]
}
