@preconcurrency import Glibc
import NetRulesLinux
import NetRulesSystem

/// Which directories the rule watcher watches, and which events in them matter.
///
/// Files are watched through their directory, because editors and config tools replace a file by
/// renaming a new one over it, and a watch on the old inode would see nothing. A directory given
/// as a rule path (like `/etc/netrules`) matters for every `*.yaml`/`*.yml` entry not starting with
/// a dot (editor lock and swap files do). A symlinked file also has its target's directory watched,
/// for the target's name.
///
/// A value type with no I/O except `plan` (which stats paths), so the filter is tested as data.
struct RuleWatchSet: Sendable {
    /// What matters in one directory.
    struct Interest: Equatable, Sendable {
        /// Every visible `*.yaml`/`*.yml` entry.
        var yamlFiles = false
        /// These entries.
        var names: Set<String> = []
    }

    /// The directories to watch, by path.
    var planned: [String: Interest] = [:]
    /// The directories each live watch descriptor stands for (two paths can name one directory,
    /// and the kernel then returns the same descriptor for both).
    var watches: [CInt: Set<String>] = [:]

    /// The events the watches ask for: a file written and closed, renamed in or out, created,
    /// deleted, or its mode changed (a `chmod go-w` that fixes a refused file); and the directory
    /// itself deleted or moved.
    static let mask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF
            | IN_MOVE_SELF | IN_ONLYDIR)

    /// Plans the watches for `paths` as the file system is now.
    static func plan(_ paths: [String]) -> [String: Interest] {
        var planned: [String: Interest] = [:]
        for path in paths {
            if case .success(let status) = sys_stat(path), status.st_mode & S_IFMT == S_IFDIR {
                planned[path, default: Interest()].yamlFiles = true
                continue
            }
            // A file, or a path that does not exist yet: its directory tells when it appears.
            let (directory, name) = split(path)
            planned[directory, default: Interest()].names.insert(name)
            if case .success(let target) = sys_realpath(path), target != path {
                let (targetDirectory, targetName) = split(target)
                planned[targetDirectory, default: Interest()].names.insert(targetName)
            }
        }
        return planned
    }

    /// Whether `event` changes a watched rule file (or may have: a queue overflow, a directory gone).
    func isRelevant(_ event: InotifyEvent) -> Bool {
        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }
        guard let directories = watches[event.watch] else { return false }
        if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { return true }
        // The watched directory's own mode or owner changed (a `chmod go-w` that makes it trusted).
        guard !event.name.isEmpty else { return event.mask & UInt32(IN_ATTRIB) != 0 }
        return directories.contains { directory in
            guard let interest = planned[directory] else { return false }
            if interest.names.contains(event.name) { return true }
            return interest.yamlFiles && Self.isRuleFileName(event.name) && event.mask & UInt32(IN_ISDIR) == 0
        }
    }

    /// Forgets a watch the kernel dropped (`IN_IGNORED`: its directory was deleted or unmounted).
    mutating func forget(_ event: InotifyEvent) {
        if event.mask & UInt32(IN_IGNORED) != 0 { watches.removeValue(forKey: event.watch) }
    }

    /// The planned directories that have no live watch yet.
    var unwatched: [String] {
        let live = watches.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        return planned.keys.filter { !live.contains($0) }.sorted()
    }

    /// `*.yaml` or `*.yml`, not hidden: what a rule directory loads.
    static func isRuleFileName(_ name: String) -> Bool {
        !name.hasPrefix(".") && (name.hasSuffix(".yaml") || name.hasSuffix(".yml"))
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }
}
