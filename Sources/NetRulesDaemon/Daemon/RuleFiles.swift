import Glibc
import NetRulesActions
import NetRulesConfig
import NetRulesCore
import NetRulesSystem

/// Reads rule files from disk and loads them, for `check`, `simulate`, `explain` and the daemon.
package enum RuleFiles {
    /// A rule file or directory that cannot be read at all (as opposed to invalid content).
    package struct ReadError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Expands directories to their `*.yaml`/`*.yml` files (sorted), keeps files as given.
    package static func expand(_ paths: [String]) throws(ReadError) -> [String] {
        var files: [String] = []
        for path in paths {
            guard case .success(let info) = sys_stat(path) else {
                throw ReadError(description: "cannot read '\(path)': no such file or directory")
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                // An unreadable directory is not an empty one: saying "0 rules" would hide the problem.
                let entries: [String]
                switch sys_listDirectory(path) {
                case .success(let names): entries = names
                case .failure(let errno) where errno.rawValue == EACCES:
                    throw ReadError(
                        description: "cannot read the rules directory '\(path)': permission denied; "
                            + "make it readable by this user (chmod a+rx, or run as its owner)")
                case .failure(let errno):
                    throw ReadError(description: "cannot read the rules directory '\(path)': \(errno)")
                }
                let directory = path.hasSuffix("/") ? path : path + "/"
                let found = entries.filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && !$0.hasPrefix(".") }
                    .sorted().map { directory + $0 }
                guard !found.isEmpty else {
                    throw ReadError(
                        description: "the rules directory '\(path)' holds no rule files (*.yaml or *.yml); "
                            + "add one, or name the rule files themselves")
                }
                files += found
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Reads and loads the files; throws only when a file cannot be read.
    ///
    /// Plugins are found in the rule files' `plugins:` directories, then `PATH`; `{{env.NAME}}`
    /// reading a variable `environment` does not set (or sets empty) is a warning, in the daemon's
    /// words when `environment` is the daemon's own (`daemon`), else in `check`'s.
    package static func load(
        _ paths: [String], environment: [String: String], daemon: Bool = false
    ) throws(ReadError) -> LoadResult {
        var sources: [RuleSource] = []
        for file in try expand(paths) {
            guard let bytes = FileContents.readRegularFile(file) else {
                throw ReadError(description: "cannot read '\(file)': permission denied or not a regular file")
            }
            sources.append(RuleSource(file: file, bytes: bytes))
        }
        let searchPath = environment["PATH"]
        var loader = RuleLoader(
            findActionPlugin: { name, dirs in ActionCatalog.findPlugin(named: name, directories: dirs, path: searchPath)
            },
            findObserverPlugin: { name, dirs in
                ActionCatalog.findExecutable("netrules-observer-\(name)", directories: dirs, path: searchPath)
            },
            environment: environment
        )
        loader.environmentIsTheDaemons = daemon
        loader.fileProblem = { path in
            switch sys_stat(path) {
            case .failure(let errno): return errno == .noSuchFileOrDirectory ? "does not exist" : "\(errno.message)"
            case .success(let info) where info.st_mode & S_IFMT == S_IFDIR: return "is a directory"
            case .success: break
            }
            if case .failure = sys_access(path, R_OK) { return "is not readable by this user" }
            return nil
        }
        loader.programProblem = { name in Self.programProblem(name, searchPath: searchPath) }
        // The runner's own check, asked ahead: what it will refuse to run as root.
        loader.programTrustProblem = { word, role, ownPath, workingDirectory in
            ProgramTrust.problem(
                ofWord: word, role: role, searchPath: ownPath ?? searchPath, workingDirectory: workingDirectory)
        }
        loader.userProblem = { name in
            do {
                return try UserAccount.named(name) == nil ? "there is no user '\(name)' on this system" : nil
            } catch {
                return "the user '\(name)' cannot be looked up: \(error)"
            }
        }
        loader.groupProblem = { name in
            do {
                return try UserGroup.named(name) == nil ? "there is no group '\(name)' on this system" : nil
            } catch {
                return "the group '\(name)' cannot be looked up: \(error)"
            }
        }
        return loader.load(sources)
    }

    /// Why a `run:` command's program `name` (a name without `/`) will not be found: it is in no
    /// directory of `searchPath` (the `PATH` the daemon is given; dash's default without one).
    /// Nil when it is found.
    static func programProblem(_ name: String, searchPath: String?) -> String? {
        let path = searchPath ?? ExecutableSearch.defaultSearchPath
        // Only absolute entries: a warning that holds wherever the daemon runs.
        let found = ExecutableSearch.find(name, along: path, entries: .absoluteOnly)
        return found == nil ? "'\(name)' is not on PATH" : nil
    }

    /// Files the daemon must refuse to trust: every rule file and every plugin the rules use,
    /// checked by `problem` (which says why, or returns nil).
    package static func trustProblems(
        _ result: LoadResult, files: [String], problem: (_ path: String, _ kind: FileTrust.Kind) -> String?
    ) -> [String] {
        var problems = files.compactMap { problem($0, .ruleFile) }
        var plugins: Set<String> = []
        for rule in result.ruleSet.rules {
            for action in rule.actions {
                if let path = action.action.plugin?.executablePath { plugins.insert(path) }
            }
        }
        for observer in result.ruleSet.observers {
            if let program = observer.command.first { plugins.insert(program) }
        }
        problems += plugins.sorted().compactMap { problem($0, .plugin) }
        return problems
    }
}
