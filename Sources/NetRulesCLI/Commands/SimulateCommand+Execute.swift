internal import Glibc
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore
internal import NetRulesSystem

/// What `simulate --execute KINDS` may do for real: `run` (`run:` commands), `plugin` (action
/// plugins, programs that may do anything), `write` (files), `webhook` (HTTP requests), any of
/// them comma-separated, or `all`. Every other action is only previewed.
///
/// A bare `--execute` is a usage error rather than "everything": a replay that sends real webhooks
/// or appends to real files should be asked for by name.
struct ExecutionScope: Equatable {
    /// The kinds, in the order the help and the summary name them.
    static let kinds = ["run", "plugin", "write", "webhook"]

    var kinds: Set<String>

    /// Parses `run`, `run,write`, `all`; nil for an empty list or an unknown kind.
    static func parse(_ text: String) -> ExecutionScope? {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0.filter { $0 != " " })
        }
        if names == ["all"] { return ExecutionScope(kinds: Set(kinds)) }
        guard !names.isEmpty, names.allSatisfy(kinds.contains) else { return nil }
        return ExecutionScope(kinds: Set(names))
    }

    /// `run`, `write`, `webhook`, `plugin`, or the action's own kind for one none of those is.
    static func kind(of spec: ActionSpec) -> String {
        if case .run = spec.action { return "run" }
        if case .write = spec.action { return "write" }
        if case .webhook = spec.action { return "webhook" }
        if case .plugin = spec.action { return "plugin" }
        return spec.kind
    }

    func includes(_ spec: ActionSpec) -> Bool { kinds.contains(Self.kind(of: spec)) }

    /// The scope as the user may write it back: `run,write`, in the help's order.
    var description: String {
        kinds.count == Self.kinds.count ? "all" : Self.kinds.filter(kinds.contains).joined(separator: ",")
    }
}

extension SimulateCommand {
    /// Runs the actions `scope` allows through the real action runner, in order, and waits for
    /// every result; the others stay previews. The summary says which were which.
    ///
    /// `{{time}}` and `NETRULES_TIME` are the real time at which each firing is handed to the
    /// runner, never the virtual clock's: a line appended to a real log file, or a body posted to a
    /// real server, must not claim a time that did not happen (the preview above shows the
    /// virtual time).
    static func execute(
        _ firings: [Firing], _ ruleSet: RuleSet, scope: ExecutionScope, stateDirectory: String?, json: Bool,
        _ io: CommandIO
    ) async -> Int32 {
        let directory =
            stateDirectory
            ?? scratchDirectory(
                temporaryDirectory: getenv("TMPDIR").map { String(cString: $0) },
                workingDirectory: { if case .success(let path) = sys_getcwd() { path } else { "/" } },
                name: "netrules-simulate-" + RandomUUID.make().uppercased())
        // The simulation's own scratch directory under /tmp: what cannot be removed changes no result.
        defer { if stateDirectory == nil { removeTree(directory) } }
        let err = io.stderr
        let runner = ActionRunner(
            loop: io.loop, stateDirectory: directory, environment: io.environment,
            pluginDirectories: ruleSet.pluginDirectories,
            logger: Logger(label: "netrules.simulate", level: .trace, sink: LineLogSink { err.write($0) }),
            coalescesFirings: false)
        var executed: [String: Int] = [:]
        var previewed: [String: Int] = [:]
        let selected = firings.map { firing in
            var copy = firing
            copy.actions = firing.actions.filter(scope.includes)
            for spec in firing.actions {
                if scope.includes(spec) {
                    executed[ExecutionScope.kind(of: spec), default: 0] += 1
                } else {
                    previewed[ExecutionScope.kind(of: spec), default: 0] += 1
                }
            }
            return copy
        }.filter { !$0.actions.isEmpty }
        let expected = selected.reduce(0) { $0 + $1.actions.count }
        let failures = Task(executorPreference: io.loop) {
            var seen = 0
            var failed = 0
            for await result in runner.results {
                seen += 1
                if case .failed = result.outcome { failed += 1 }
                if seen == expected { break }
            }
            return failed
        }
        for firing in selected {
            await runner.connectivityChanged(to: firing.facts[.connectivity].value?.plainText)
            await runner.submit(firing, wallTime: WallClock.now().rfc3339)
        }
        await runner.drain()
        let failed = expected == 0 ? 0 : await failures.value
        let parked = await runner.parkedDeliveries
        if !parked.isEmpty {
            io.printError("\(parked.count) webhook deliver\(parked.count == 1 ? "y is" : "ies are") held until online")
        }
        if json {
            func counts(_ table: [String: Int]) -> JSONValue {
                .object(table.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })
            }
            io.print(
                JSONValue.object([
                    ("version", .number(1)), ("event", .string("executed")), ("scope", .string(scope.description)),
                    ("executed", counts(executed)), ("previewed", counts(previewed)),
                    ("failed", .number(Double(failed))),
                ]).compact)
        } else {
            io.print(summary(executed: executed, previewed: previewed, failed: failed, scope: scope))
        }
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }

    /// Where `--execute` keeps its state without `--state-dir`: `name` in the directory `TMPDIR`
    /// names, `/tmp` when it is unset, joined with a `/` unless it ends in one; a relative one is
    /// under the working directory.
    static func scratchDirectory(
        temporaryDirectory: String?, workingDirectory: () -> String, name: String
    ) -> String {
        var directory = temporaryDirectory ?? "/tmp"
        if !directory.isEmpty, !directory.hasPrefix("/") {
            let base = workingDirectory()
            directory = base + (base.hasSuffix("/") ? "" : "/") + directory
        }
        return directory + (directory.hasSuffix("/") ? "" : "/") + name
    }

    /// Removes `path` and everything in it, as `rm -r` does: a symbolic link is removed, never
    /// followed. What cannot be removed stays.
    static func removeTree(_ path: String) {
        guard case .success(let info) = sys_lstat(path) else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            _ = sys_unlink(path)
            return
        }
        if case .success(let names) = sys_listDirectory(path) {
            for name in names { removeTree(path + "/" + name) }
        }
        _ = sys_rmdir(path)
    }

    /// `executed for real: 2 run (1 failed); previewed only: 1 webhook (not in --execute run)`.
    static func summary(executed: [String: Int], previewed: [String: Int], failed: Int, scope: ExecutionScope)
        -> String
    {
        func list(_ table: [String: Int]) -> String {
            let order = ExecutionScope.kinds + table.keys.filter { !ExecutionScope.kinds.contains($0) }.sorted()
            return order.compactMap { kind in table[kind].map { "\($0) \(kind)" } }.joined(separator: ", ")
        }
        var text = "executed for real: " + (executed.isEmpty ? "nothing" : list(executed))
        if failed > 0 { text += " (\(failed) failed)" }
        if !previewed.isEmpty {
            text += "; previewed only: \(list(previewed)) (not in --execute \(scope.description))"
        }
        return text
    }
}
