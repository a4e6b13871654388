@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// Whether a `run:` command may run as root: `FileTrust`'s check, the same one rule files and
/// plugins pass, on the files the command runs.
///
/// The files are the program (the resolved executable of a direct start, else the command's first
/// word looked up on `PATH` as the shell will) and the script an interpreter or `.` is given
/// (`ShellProgramReference`). A word that names no existing file is left to the command, which
/// then fails in its own words (`not found`). `check` asks it for each word (a warning at the
/// word), the runner for the whole command before it starts (the action fails with the reason).
package enum ProgramTrust {
    /// Why root must not run the file `word` names, or nil when it may (or names no file).
    ///
    /// - Parameters:
    ///   - role: a program is looked up on `searchPath` when it has no `/`; a script, like a
    ///     program written with a `/`, is a path, relative to `workingDirectory`.
    ///   - searchPath: the `PATH` the command searches; dash's default when nil.
    ///   - workingDirectory: where the command runs; nil leaves a relative path unchecked.
    ///   - runningAsRoot: whether the command runs as root; only then is anything refused.
    /// - Returns: `FileTrust`'s sentence: `refusing program /opt/x/run: it is writable by other
    ///   users (mode 0777, owner root); run: chmod go-w /opt/x/run`.
    package static func problem(
        ofWord word: String, role: ShellProgramReference.Role, searchPath: String?, workingDirectory: String?,
        runningAsRoot: Bool = geteuid() == 0
    ) -> String? {
        guard runningAsRoot,
            let path = resolve(word, role: role, searchPath: searchPath, workingDirectory: workingDirectory)
        else { return nil }
        return problem(ofFile: path, runningAsRoot: runningAsRoot)
    }

    /// Why root must not run `command`, or nil: the first file that fails the check.
    /// - Parameters:
    ///   - executable: the program a direct start resolved, checked in place of the first word.
    ///   - searchPath: the `PATH` of the child's environment (dash's default when nil).
    ///   - workingDirectory: the action's `cwd:`, else the daemon's own directory.
    static func problem(
        of command: ShellCommandTemplate, executable: String?, searchPath: String?, workingDirectory: String?
    ) -> String? {
        var references = ShellProgramReference.references(in: command)
        var paths: [String] = []
        if let executable {
            paths.append(executable)
            if references.first?.role == .program { references.removeFirst() }
        }
        let directory: String? =
            if let workingDirectory { workingDirectory } else if case .success(let here) = sys_getcwd() { here } else {
                nil
            }
        paths += references.compactMap {
            resolve($0.word, role: $0.role, searchPath: searchPath, workingDirectory: directory)
        }
        for path in paths {
            if let problem = problem(ofFile: path, runningAsRoot: true) { return problem }
        }
        return nil
    }

    /// `FileTrust` on a file that exists; nil for one that does not (what runs it reports that).
    private static func problem(ofFile path: String, runningAsRoot: Bool) -> String? {
        guard case .success = sys_lstat(path) else { return nil }
        return FileTrust.problem(withFile: path, runningAsRoot: runningAsRoot, kind: .program)
    }

    /// The path `word` stands for, or nil when it names nothing that can be checked.
    private static func resolve(
        _ word: String, role: ShellProgramReference.Role, searchPath: String?, workingDirectory: String?
    ) -> String? {
        if role == .program && !word.contains("/") {
            return ExecutableSearch.find(
                word, along: searchPath ?? ExecutableSearch.defaultSearchPath, entries: .asTheShellSearches)
        }
        if word.hasPrefix("/") { return word }
        guard let workingDirectory else { return nil }
        return (workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/") + word
    }
}
