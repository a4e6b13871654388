@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// A simple `run:` command started without `/bin/sh`, prepared so that the program cannot tell.
///
/// `/bin/sh -c 'prog arg'` (dash) forks once more and waits; starting `prog` directly saves that
/// fork and dash's own start (design note 0008). Everything dash would do on the way is done
/// here the same way:
///
/// - **The program** is looked up like dash: a name with a `/` as is (relative to the working
///   directory), any other along the `PATH` of the child's environment (dash's default path when
///   it has none), taking the first regular file the caller may execute.
/// - **The environment** is what dash exports: entries that are not `NAME=value` with a shell
///   name are dropped, the last of duplicates wins, `IFS`, `OPTIND` and `PPID` are reset as dash
///   resets them, and `PWD` is set unless it already names the working directory.
/// - **The end** is reported as dash reports it (`reportedAsShell`).
///
/// When anything is not as expected (a relative `PATH` entry, a command not found or not
/// executable along `PATH`, a working directory that cannot be examined) `prepare` returns nil and
/// the runner starts `/bin/sh -c` instead, which then prints and exits just as it always did
/// (`sh: 1: NAME: not found`, 127). A spawn that fails is reported with its errno, except ENOEXEC
/// (a script without `#!`, which sh runs itself): see `RunExecutor.shellTakesOver`.
struct DirectCommand: Equatable, Sendable {
    /// The file to execute.
    var executablePath: String
    /// `argv`, the command name as written first.
    var arguments: [[UInt8]]
    /// The environment as dash would pass it on.
    var environment: [[UInt8]]

    /// Prepares `arguments` for a direct start, or returns nil when only the shell can run it.
    /// - Parameters:
    ///   - environment: the `NAME=value` entries the shell would have been given.
    ///   - workingDirectory: where the command runs; nil for the daemon's own.
    static func prepare(
        _ arguments: [[UInt8]], environment: [[UInt8]], workingDirectory: String?
    ) -> DirectCommand? {
        guard let name = arguments.first, !name.isEmpty,
            let environment = exportedByShell(environment, workingDirectory: workingDirectory)
        else { return nil }
        let nameText = String(decoding: name, as: UTF8.self)
        // A name that is not UTF-8 would not survive the String round trip of the path.
        guard Array(nameText.utf8) == name else { return nil }
        if name.contains(UInt8(ascii: "/")) {
            return DirectCommand(executablePath: nameText, arguments: arguments, environment: environment)
        }
        let searchPath =
            environment.last { $0.starts(with: Array("PATH=".utf8)) }.map {
                String(decoding: $0.dropFirst(5), as: UTF8.self)
            }
            ?? ExecutableSearch.defaultSearchPath
        // An empty, relative or `%` entry: the shell decides.
        guard let path = ExecutableSearch.find(nameText, along: searchPath, entries: .asTheShellSearches) else {
            return nil
        }
        return DirectCommand(executablePath: path, arguments: arguments, environment: environment)
    }

    /// What dash passes on of `entries`: it imports `NAME=value` entries with a valid shell
    /// name (the last of duplicates winning), resets `IFS`, `OPTIND` and `PPID` if they are
    /// exported, and always exports `PWD`, keeping an inherited one only when it is absolute and
    /// names the working directory. Nil when the working directory cannot be examined.
    static func exportedByShell(_ entries: [[UInt8]], workingDirectory: String?) -> [[UInt8]]? {
        // Each entry with a valid shell name, cut at a NUL, with where its name ends and its place.
        typealias Kept = (entry: [UInt8], nameEnd: Int, place: Int)
        var kept: [Kept] = []
        kept.reserveCapacity(entries.count + 1)
        for whole in entries {
            let entry = whole.firstIndex(of: 0).map { Array(whole[..<$0]) } ?? whole
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")), isShellName(entry[..<equals]) else { continue }
            kept.append((entry, equals, kept.count))
        }
        func name(_ item: Kept) -> ArraySlice<UInt8> { item.entry[..<item.nameEnd] }
        // Each name once, the last entry's value in the first one's place: sorting by name (then
        // place) puts the entries of one name side by side. A firing's environment is sorted with
        // each name once already (`FiringEnvironment`), so it is only checked, in one pass: no
        // name is hashed or sorted on the way from a change to its actions.
        let ordered = zip(kept, kept.dropFirst()).allSatisfy { name($0).lexicographicallyPrecedes(name($1)) }
        if !ordered {
            var unique: [Kept] = []
            for item in kept.sorted(by: { a, b in
                name(a).lexicographicallyPrecedes(name(b)) || (name(a).elementsEqual(name(b)) && a.place < b.place)
            }) {
                if let last = unique.last, name(last).elementsEqual(name(item)) {
                    unique[unique.count - 1].entry = item.entry
                } else {
                    unique.append(item)
                }
            }
            kept = unique.sorted { $0.place < $1.place }
        }
        // dash resets IFS, OPTIND and PPID if they are exported, and decides PWD.
        var pwd: Int?
        for index in kept.indices where kept[index].nameEnd <= 6 {
            switch String(decoding: name(kept[index]), as: UTF8.self) {
            case "IFS": kept[index].entry = Array("IFS= \t\n".utf8)
            case "OPTIND": kept[index].entry = Array("OPTIND=1".utf8)
            case "PPID": kept[index].entry = Array("PPID=\(getpid())".utf8)
            case "PWD": pwd = index
            default: break
            }
        }
        let inherited = pwd.map { Array(kept[$0].entry[(kept[$0].nameEnd + 1)...]) }
        guard let choice = exportedPWD(inherited: inherited, workingDirectory: workingDirectory) else { return nil }
        if case .set(let physical) = choice {
            let entry = Array("PWD=\(physical)".utf8)
            if let pwd { kept[pwd].entry = entry } else { kept.append((entry, 3, kept.count)) }
        }
        return kept.map(\.entry)
    }

    /// What dash does with `PWD`: keeps an inherited one that is absolute and names the working
    /// directory, else sets the directory's physical path.
    private enum PWDChoice {
        case keep
        case set(String)
    }

    /// The `PWD` dash exports given the inherited value; nil when the working directory cannot be
    /// examined.
    private static func exportedPWD(inherited: [UInt8]?, workingDirectory: String?) -> PWDChoice? {
        let directory = workingDirectory ?? "."
        guard case .success(let here) = sys_stat(directory) else { return nil }
        if let inherited, inherited.first == UInt8(ascii: "/"),
            case .success(let there) = sys_stat(String(decoding: inherited, as: UTF8.self)),
            there.st_dev == here.st_dev && there.st_ino == here.st_ino
        {
            return .keep
        }
        guard case .success(let physical) = sys_realpath(directory) else { return nil }
        return .set(physical)
    }

    /// dash's `is_name`/`is_in_name` (ASCII; dash sets no locale).
    private static func isShellName(_ name: some Collection<UInt8>) -> Bool {
        guard let first = name.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        return name.allSatisfy { $0 == UInt8(ascii: "_") || isLetter($0) || (0x30...0x39).contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// The end of a directly started command as `/bin/sh -c` would have reported it.
    ///
    /// dash waits for the program; when a signal ends it (and not the runner's timeout or stop,
    /// which end dash itself), dash prints the signal's description (`strsignal(3)`, with
    /// ` (core dumped)`; nothing for SIGINT and SIGPIPE) on its standard error and exits with
    /// 128 + the signal number.
    static func reportedAsShell(_ outcome: ChildProcessOutcome, outputLimit: Int) -> ChildProcessOutcome {
        guard case .signaled(let signal) = outcome.termination, !outcome.timedOut, !outcome.stopped else {
            return outcome
        }
        var reported = outcome
        reported.termination = .exited(128 + signal)
        reported.coreDumped = false
        if signal != SIGINT && signal != SIGPIPE {
            let line = Array((signalDescription(signal) + (outcome.coreDumped ? " (core dumped)" : "") + "\n").utf8)
            line.withUnsafeBytes { reported.standardError.append($0, limit: outputLimit) }
        }
        return reported
    }

    /// `strsignal(3)` in the C locale, as dash prints it.
    static func signalDescription(_ signal: Int32) -> String {
        if let text = sys_sigdescr_np(signal) { return text }
        let realTimeMinimum = Int32(__libc_current_sigrtmin())
        if signal >= realTimeMinimum && signal <= Int32(__libc_current_sigrtmax()) {
            return "Real-time signal \(signal - realTimeMinimum)"
        }
        return "Unknown signal \(signal)"
    }
}
