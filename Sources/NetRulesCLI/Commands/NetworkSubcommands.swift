import NetRulesCore
import NetRulesLinux
import NetRulesProbes

/// `netrules status [--json]`: one snapshot of the network facts.
enum StatusSubcommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show the network as netrules sees it: interfaces, addresses, gateway, DNS, Wi-Fi.",
        discussion: """
            With --json, one document whose keys are the fact keys rules use: \
            {"version":1,"facts":{"gateway":"…","ip":[…],"interfaces.eth0":"up",…}}.
            """,
        options: [.json]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let out = io.stdout
        let err = io.stderr
        return await StatusCommand.run(
            json: arguments.flag("json"), output: { out.write($0) }, errorOutput: { err.write($0) })
    }
}

/// `netrules watch [--json]`: fact changes as they happen.
enum WatchSubcommand: Command {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Print each network fact change as it happens, until interrupted.",
        discussion: "With --json, one line per change: {\"version\":1,\"key\":…,\"old\":…,\"new\":…,\"at\":…}.",
        options: [.json]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let out = io.stdout
        let err = io.stderr
        return await WatchCommand.run(
            json: arguments.flag("json"), output: { out.write($0) }, errorOutput: { err.write($0) })
    }
}

/// `netrules ping HOST… [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [--json]`.
enum PingSubcommand: Command {
    static let spec = CommandSpec(
        name: "ping",
        abstract: "Send ICMP echo requests, like ping; several hosts at once share one socket.",
        discussion: """
            Exits 0 when any reply came, 1 otherwise. Uses an unprivileged ICMP socket when \
            net.ipv4.ping_group_range allows it, else a raw socket (root).
            """,
        arguments: [ArgumentSpec(name: "host", help: "Addresses or names to ping.", isRepeating: true)],
        options: [
            OptionSpec(long: "count", short: "c", valueName: "count", help: "Echo requests per host.", defaultValue: "3"),
            OptionSpec(
                long: "interval", short: "i", valueName: "seconds", help: "Time between requests.", defaultValue: "1"),
            OptionSpec(
                long: "timeout", short: "W", valueName: "seconds", help: "How long to wait for each reply.",
                defaultValue: "0.5"),
            OptionSpec(long: "json", help: "Print one JSON object per reply, timeout and summary (JSON Lines)."),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        guard let count = Int(arguments.value("count") ?? "3"), count >= 1 else {
            throw CommandError.runtime("--count must be a whole number of at least 1")
        }
        let interval = try seconds(arguments.value("interval") ?? "1", option: "--interval")
        let timeout = try seconds(arguments.value("timeout") ?? "0.5", option: "--timeout")
        let out = io.stdout
        let err = io.stderr
        return await PingCommand.run(
            hosts: arguments.positional("host"), count: count, interval: interval, timeout: timeout,
            json: arguments.flag("json"), output: { out.write($0) }, errorOutput: { err.write($0) })
    }

    /// Seconds as ping writes them (`0.5`), or a duration (`500ms`).
    static func seconds(_ text: String, option: String) throws -> Duration {
        if let s = Double(text), s.isFinite, s >= 0 { return .milliseconds(Int64(s * 1000)) }
        if let d = DurationSyntax.parse(text) { return d }
        throw CommandError.runtime("\(option) must be seconds (0.5) or a duration (500ms), not '\(text)'")
    }
}

/// `netrules portal [--url URL…] [--json]`: one captive-portal classification with its evidence.
enum PortalSubcommand: Command {
    static let spec = CommandSpec(
        name: "portal",
        abstract: "Check for a captive portal: online, portal or offline, with the evidence.",
        discussion: """
            Fetches the probe URLs over plain HTTP in parallel without following redirects; the first \
            conclusive answer wins. Without --url, Apple's hotspot-detect page and a generate_204 URL.
            """,
        options: [
            OptionSpec(
                long: "url", valueName: "url", help: "A probe URL (repeatable); expects 'Success' or an empty 204.",
                isRepeating: true),
            OptionSpec(long: "interface", valueName: "name", help: "Bind the probes to this interface."),
            OptionSpec(long: "timeout", valueName: "seconds", help: "Per-probe timeout.", defaultValue: "5"),
            .json,
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let timeout = try PingSubcommand.seconds(arguments.value("timeout") ?? "5", option: "--timeout")
        let out = io.stdout
        return await PortalCommand.run(
            urls: arguments.values("url").filter { !$0.isEmpty }, json: arguments.flag("json"),
            interface: arguments.value("interface"), timeout: timeout, output: { out.write($0) })
    }
}
