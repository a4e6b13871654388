internal import Glibc
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesLinux
internal import NetRulesSystem

/// `netrules doctor [RULES…] [--json]`: what this machine can and cannot tell netrules, and the fix.
enum DoctorCommand: Command {
    static let spec = CommandSpec(
        name: "doctor",
        abstract: "Check what this machine can tell netrules, and how to fix what it cannot.",
        discussion: """
            One line per check, each ok, warning or error with the fix in one sentence: nl80211, \
            NetworkManager on the system bus, which source serves each Wi-Fi fact, unprivileged ICMP \
            (net.ipv4.ping_group_range), the control socket, the state directory and, with RULES, \
            whether the rule files are trusted, whether their probe hosts resolve, each place with \
            whether its proofs can run here (the host resolves, a route leads to it; nothing is sent), \
            the MQTT broker of mqtt: (one connection as CLIENT_ID-doctor, without a Will, publishing \
            nothing, its answer within 5 s), and which facts they read that nothing on this machine \
            provides. Exits 0 unless a check is an error.

            With a daemon answering, the reload check is an error while its last reload failed: 'reload: \
            FILE has errors since TIME (N); running the previous rules'. With --json, one document: \
            {"version":1,"checks":[{"name":…,"status":"ok"|"warning"|"error","detail":…,"fix":…|null}]}; \
            the failed reload check adds the "failed_reload" object 'status --json' shows.
            """,
        arguments: [
            ArgumentSpec(
                name: "rules", help: "Rule files or directories of *.yaml files to check against this machine.",
                isOptional: true, isRepeating: true, completion: .files)
        ],
        options: [
            .json,
            OptionSpec(
                long: "socket", valueName: "path", help: "The daemon's control socket to look for.",
                aliases: ["control-socket"]),
            OptionSpec(long: "state-dir", valueName: "dir", help: "The daemon's state directory to look at."),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let paths = DaemonPaths.defaults(
            environment: io.environment, stateDirectory: arguments.value("state-dir"),
            controlSocket: arguments.value("socket"))
        var checks: [DoctorCheck] = []
        let kernelWiFi = WiFiSource.kernelHasNL80211
        let networkManager = NetworkManagerObserver.isOnBus(busAddress: io.environment["DBUS_SYSTEM_BUS_ADDRESS"])
        checks.append(
            kernelWiFi
                ? .ok("nl80211", "the kernel answers for nl80211: ssid, bssid, signal (dBm) and frequency come from it")
                : .warning(
                    "nl80211", "this kernel has no nl80211 (no cfg80211, or a container without Wi-Fi)",
                    fix:
                        "nothing to do if NetworkManager serves Wi-Fi here; otherwise load cfg80211 on a machine with Wi-Fi"
                ))
        switch networkManager {
        case true?:
            checks.append(
                .ok(
                    "networkmanager",
                    "NetworkManager is on the system bus: connection, vpn and nm.connectivity come from it"))
        case false?:
            checks.append(
                .warning(
                    "networkmanager", "NetworkManager is not on the system bus",
                    fix: "start it (systemctl start NetworkManager) if rules read connection, vpn or nm.connectivity"))
        case nil:
            checks.append(
                .warning(
                    "networkmanager", "there is no system bus to ask",
                    fix: "start dbus (systemctl start dbus) if rules read NetworkManager's facts"))
        }
        let rulePaths = arguments.positional("rules")
        // Read before the Wi-Fi check, which names the sources these rules' `wifi:` and `provides:` pick.
        let loaded = rulePaths.isEmpty ? nil : try RuleFiles.load(rulePaths, environment: io.environment)
        let sources = FactSources(
            ruleSet: loaded?.ruleSet ?? RuleSet(), kernelHasNL80211: kernelWiFi,
            networkManagerOnBus: networkManager == true)
        checks.append(wifiSourceCheck(sources))
        checks.append(icmpCheck())
        checks.append(await controlSocketCheck(paths.controlSocket))
        if let observers = await observersCheck(paths.controlSocket) { checks.append(observers) }
        if let reload = await reloadCheck(paths.controlSocket) { checks.append(reload) }
        checks.append(stateDirectoryCheck(paths.stateDirectory))
        if let loaded { checks += await ruleChecks(loaded, paths: rulePaths, io: io, sources: sources) }
        if arguments.flag("json") {
            io.print(
                JSONValue.object([("version", .number(1)), ("checks", .array(checks.map(\.json)))]).compact)
        } else {
            let width = TerminalWidth.current(environment: io.environment)
            for check in checks { io.print(check.text(style: io.stdoutStyle, width: width)) }
        }
        return checks.contains { $0.status == .error } ? ExitCode.failure : ExitCode.success
    }

    /// Datagram ICMP sockets need the caller's group inside `net.ipv4.ping_group_range`; raw ones
    /// need root or CAP_NET_RAW.
    static func icmpCheck() -> DoctorCheck {
        // An unreadable sysctl reads as no range, and the check below then reports datagram ICMP as not permitted,
        // with the fix.
        let text =
            FileContents.readRegularFile("/proc/sys/net/ipv4/ping_group_range").flatMap {
                String(validating: $0, as: UTF8.self)
            } ?? ""
        let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int64($0) }
        let group = Int64(getegid())
        let inRange = bounds.count == 2 && bounds[0] <= group && group <= bounds[1]
        if inRange { return .ok("icmp", "unprivileged ICMP sockets are allowed for group \(group)") }
        if geteuid() == 0 {
            return .ok(
                "icmp",
                "running as root: ICMP probes use raw sockets (ping_group_range is '\(bounds.map(String.init).joined(separator: " "))')"
            )
        }
        return .warning(
            "icmp", "group \(group) is outside net.ipv4.ping_group_range, so ICMP probes need raw sockets",
            fix: "run as root, give netrules CAP_NET_RAW, or: sysctl -w net.ipv4.ping_group_range='0 2147483647'")
    }

    static func controlSocketCheck(_ path: String) async -> DoctorCheck {
        guard case .success(let info) = sys_lstat(path) else {
            return .warning(
                "control-socket", "no daemon socket at \(path)",
                fix:
                    "start the daemon (systemctl start netrules, or netrules run); status and watch read the system directly meanwhile"
            )
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            return .error(
                "control-socket", "\(path) exists and is not a socket",
                fix: "remove it, or give --socket another path")
        }
        if info.st_mode & 0o077 != 0 {
            return .error(
                "control-socket", "\(path) can be used by other users (mode \(String(info.st_mode & 0o777, radix: 8)))",
                fix: "chmod 600 \(path); the daemon sets it so itself on start")
        }
        let answered: Bool
        // Doctor reports whether a daemon answers; any failure to connect or to get an answer is
        // that answer.
        if let client = try? ControlClient.connect(path: path, timeout: .seconds(2)),
            (try? await client.response(to: ControlRequest.rules.document)) != nil
        {
            answered = true
        } else {
            answered = false
        }
        return answered
            ? .ok("control-socket", "a daemon answers on \(path)")
            : .warning(
                "control-socket", "\(path) exists but no daemon answers on it",
                fix: "start the daemon; a stale socket is replaced when it starts")
    }

    /// The running daemon's observers: an error naming each one that stopped and has not reported
    /// since, with the facts and rules that wait for it; nil when no daemon answers.
    static func observersCheck(_ path: String) async -> DoctorCheck? {
        guard let client = try? ControlClient.connect(path: path, timeout: .seconds(2)),
            let answer = try? await client.response(to: ControlRequest.status.document)
        else { return nil }
        let failed = ControlDocuments.failedObservers(from: answer.member("observers"))
        guard !failed.isEmpty else { return .ok("observers", "every observer of the daemon is running") }
        let details = failed.map { failure -> String in
            var text = "'\(failure.name)' stopped: \(failure.error ?? "it ended")"
            if !failure.rules.isEmpty {
                text += " (rules that cannot become true meanwhile: \(failure.rules.joined(separator: ", ")))"
            }
            return text
        }
        return .error(
            "observers",
            "\(failed.count) observer\(failed.count == 1 ? "" : "s") failed: " + details.joined(separator: "; "),
            fix: "see 'netrules status' and the daemon's log; the daemon starts each again with a back-off of up to 60s"
        )
    }

    static func stateDirectoryCheck(_ path: String) -> DoctorCheck {
        guard case .success(let info) = sys_stat(path) else {
            return .ok("state-dir", "\(path) does not exist yet; the daemon creates it (mode 0700)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return .error("state-dir", "\(path) is not a directory", fix: "remove it or choose another --state-dir")
        }
        if info.st_uid != geteuid() {
            return .error(
                "state-dir", "\(path) is owned by uid \(info.st_uid), not by this user (uid \(geteuid()))",
                fix: "chown \(geteuid()) \(path), or choose another --state-dir")
        }
        if case .failure(let error) = sys_access(path, W_OK) {
            return .error(
                "state-dir", "\(path) is not writable (\(error.message))",
                fix: "make it writable by this user; netrules keeps its rule state and webhook outbox there")
        }
        if info.st_mode & 0o077 != 0 {
            return .warning(
                "state-dir", "\(path) is readable by other users (mode \(String(info.st_mode & 0o777, radix: 8)))",
                fix: "chmod 700 \(path): the outbox holds webhook requests")
        }
        return .ok("state-dir", "\(path) is present, writable and private")
    }

    /// Trust, probe hosts, and facts the rules read that nothing here provides.
    static func ruleChecks(_ result: LoadResult, paths: [String], io: CommandIO, sources: FactSources) async
        -> [DoctorCheck]
    {
        var checks: [DoctorCheck] = []
        if result.hasErrors {
            checks.append(
                .error(
                    "rules", "the rule files have \(result.errorCount) error\(result.errorCount == 1 ? "" : "s")",
                    fix: "run netrules check \(paths.joined(separator: " ")) and fix what it reports"))
        } else {
            checks.append(.ok("rules", "\(result.ruleSet.rules.count) rules load"))
        }
        // The files were just loaded from the same paths (the rules check above reports a read
        // failure); a path that went since has nothing left to check.
        let distrusted = RuleFiles.trustProblems(result, files: (try? RuleFiles.expand(paths)) ?? []) {
            FileTrust.problem(withFile: $0, kind: $1)
        }
        checks.append(
            distrusted.isEmpty
                ? .ok("rule-trust", "the daemon would trust these rule files and plugins")
                : .error("rule-trust", distrusted.joined(separator: "; "), fix: "fix the owners and modes named above"))
        for host in result.ruleSet.hosts where IPAddress(host.address) == nil {
            let check: DoctorCheck =
                switch sys_getaddrinfo(host.address, { _ in () }) {
                case .success: .ok("host \(host.name)", "\(host.address) resolves")
                case .failure(let failure):
                    .warning(
                        "host \(host.name)",
                        "\(host.address) does not resolve (\(failure.message))",
                        fix: "check the name and the DNS servers, or write the address")
                }
            checks.append(check)
        }
        checks += placeChecks(result.ruleSet.places)
        if let mqtt = result.ruleSet.mqtt {
            checks.append(await mqttCheck(mqtt, environment: io.environment, loop: io.loop))
        }
        checks += factChecks(reading: result.ruleSet.readKeys, sources: sources)
        return checks
    }
}
