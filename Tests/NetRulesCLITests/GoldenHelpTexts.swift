/// Expected help texts of ``SampleCommands``; ``HelpGoldenTests`` compares against them.
///
/// Do not edit these by hand after a deliberate change to the help layout: run
/// `NETRULES_RECORD=1 swift test --filter HelpGoldenTests`, which prints every actual text to stderr in this form,
/// review the difference, and paste the new literals here. Trailing blank lines are part of the expected text.
enum GoldenHelpTexts {
    static let rootAt80 = """
        OVERVIEW: React to network changes with declarative rules.

        netrules watches links, addresses, Wi-Fi and reachability, and runs the actions
        of every rule whose conditions start or stop holding.

        USAGE: netrules <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          check                   Validate rule files.
          simulate                Replay a timeline of facts against rules on a virtual
                                  clock.
          rules                   Inspect the rules in a file.

          See 'netrules help <subcommand>' for detailed help.

        """

    static let rootAt40 = """
        OVERVIEW: React to network changes with
        declarative rules.

        netrules watches links, addresses,
        Wi-Fi and reachability, and runs the
        actions of every rule whose conditions
        start or stop holding.

        USAGE: netrules <subcommand>

        OPTIONS:
          --version               Show the
                                  version.
          -h, --help              Show help
                                  information.

        SUBCOMMANDS:
          check                   Validate rule
                                  files.
          simulate                Replay a
                                  timeline of
                                  facts against
                                  rules on a
                                  virtual clock.
          rules                   Inspect the
                                  rules in a
                                  file.

          See 'netrules help <subcommand>' for detailed help.

        """

    static let simulateAt80 = """
        OVERVIEW: Replay a timeline of facts against rules on a virtual clock.

        Nothing is executed: every firing is printed instead of run.

        USAGE: netrules simulate <rules> --timeline <file> [--json] [--format <format>] [--count <count>] [--verbose] [--tag <tag> ...] [--offset <seconds>] [--max-replay-duration <duration>]

        ARGUMENTS:
          <rules>                 The rule file to load.

        OPTIONS:
          -t, --timeline <file>   The timeline to replay.
          --json                  Print one JSON object per firing.
          -f, --format <format>   The layout of each printed firing. (values: text,
                                  table; default: text)
          -c, --count <count>     How many times to replay the timeline. (default: 1)
          -v, --verbose           Log every fact update to standard error.
          --tag <tag>             Only simulate rules carrying this tag.
          -o, --offset <seconds>  Shift the timeline by this many seconds, which may be
                                  negative.
          --max-replay-duration <duration>
                                  Stop after this much virtual time. (default: 1h)
          -h, --help              Show help information.


        """

    static let checkAt80 = """
        OVERVIEW: Validate rule files.

        USAGE: netrules check <files> ... [--json] [--quiet]

        ARGUMENTS:
          <files>                 The rule files to validate.

        OPTIONS:
          --json                  Print one JSON document with every diagnostic.
          -q, --quiet             Print nothing; report only through the exit status.
          -h, --help              Show help information.


        """

    static let simulateAt40 = """
        OVERVIEW: Replay a timeline of facts
        against rules on a virtual clock.

        Nothing is executed: every firing is
        printed instead of run.

        USAGE: netrules simulate <rules> --timeline <file> [--json] [--format <format>] [--count <count>] [--verbose] [--tag <tag> ...] [--offset <seconds>] [--max-replay-duration <duration>]

        ARGUMENTS:
          <rules>                 The rule file
                                  to load.

        OPTIONS:
          -t, --timeline <file>   The timeline
                                  to replay.
          --json                  Print one
                                  JSON object
                                  per firing.
          -f, --format <format>   The layout of
                                  each printed
                                  firing.
                                  (values:
                                  text, table;
                                  default: text)
          -c, --count <count>     How many
                                  times to
                                  replay the
                                  timeline.
                                  (default: 1)
          -v, --verbose           Log every
                                  fact update
                                  to standard
                                  error.
          --tag <tag>             Only simulate
                                  rules
                                  carrying this
                                  tag.
          -o, --offset <seconds>  Shift the
                                  timeline by
                                  this many
                                  seconds,
                                  which may be
                                  negative.
          --max-replay-duration <duration>
                                  Stop after
                                  this much
                                  virtual time.
                                  (default: 1h)
          -h, --help              Show help
                                  information.


        """

    static let rulesAt80 = """
        OVERVIEW: Inspect the rules in a file.

        USAGE: netrules rules <subcommand>

        OPTIONS:
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List the rules in a file.
          show                    Show one rule, or all of them.

          See 'netrules help rules <subcommand>' for detailed help.

        """

    static let rulesAt40 = """
        OVERVIEW: Inspect the rules in a file.

        USAGE: netrules rules <subcommand>

        OPTIONS:
          -h, --help              Show help
                                  information.

        SUBCOMMANDS:
          list                    List the
                                  rules in a
                                  file.
          show                    Show one
                                  rule, or all
                                  of them.

          See 'netrules help rules <subcommand>' for detailed help.

        """

    static let rulesShowAt80 = """
        OVERVIEW: Show one rule, or all of them.

        USAGE: netrules rules show <file> [<id>]

        ARGUMENTS:
          <file>                  The rule file to read.
          <id>                    The rule to show.

        OPTIONS:
          -h, --help              Show help information.


        """
}
