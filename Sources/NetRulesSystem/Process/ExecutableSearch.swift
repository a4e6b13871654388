@preconcurrency import Glibc
import Synchronization

/// The package's one `PATH` search: the first regular file of the name that this process may
/// execute (`access(2)` with `X_OK`), in the entries of a colon-separated list, in order.
///
/// Every program the daemon starts by name is found with it: a `run:` command started without
/// the shell, the programs `ProgramTrust` checks, action and observer plugins, an observer's
/// `command:`, and `check`'s "not on PATH". A directory or a file without an execute bit for us
/// is passed over, as a shell passes it over. The callers differ only in what an entry that is no
/// absolute directory means, and each says so (`Entries`).
package enum ExecutableSearch {
    /// dash's `PATH` when the environment has none (`defpathvar` in dash's var.c), used by every
    /// search without one.
    package static let defaultSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// This process's `PATH` (`getenv(3)`), else `defaultSearchPath`: for a program the daemon
    /// starts with its own environment.
    package static var processSearchPath: String {
        getenv("PATH").map { String(cString: $0) } ?? defaultSearchPath
    }

    /// What the search does with an entry that is not an absolute directory: an empty one (the
    /// working directory, to a shell) or a relative one.
    package enum Entries: Sendable {
        /// Passed over: the daemon's own searches (plugins, observer commands, `check`), which never
        /// depend on the directory the daemon happens to run in. A candidate is `directory/name`,
        /// with no second `/` after a directory that ends in one.
        case absoluteOnly
        /// The search ends there with nil, and so does one at dash's `%builtin` markers: a `run:`
        /// command, which `/bin/sh` runs instead and finds as it always did. A candidate is joined
        /// as dash joins it, `directory` + `/` + `name` (`/usr/bin/` gives `/usr/bin//ls`, which a
        /// script sees as its `$0`).
        case asTheShellSearches
    }

    /// The first executable regular file `name` in `directories` then along `searchPath`, or nil.
    ///
    /// - Parameters:
    ///   - name: A file name; one that is empty or holds a `/` or a NUL finds nothing.
    ///   - directories: Searched first, each as one entry (the rule files' `plugins:` list).
    ///   - searchPath: A `PATH`-style list.
    ///   - entries: What an empty or relative entry does.
    package static func find(
        _ name: String, in directories: [String] = [], along searchPath: String, entries: Entries
    ) -> String? {
        guard !name.isEmpty, !name.contains("/"), !name.contains("\0") else { return nil }
        let along = split(searchPath)
        for entry in directories.isEmpty ? along : directories.map(Entry.init) + along {
            let candidate: String
            switch entries {
            case .absoluteOnly:
                guard entry.isAbsolute else { continue }
                candidate = entry.directory.hasSuffix("/") ? entry.directory + name : entry.directory + "/" + name
            case .asTheShellSearches:
                guard entry.isAbsolute, !entry.hasShellMarker else { return nil }
                candidate = entry.directory + "/" + name
            }
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// Whether `path` is a regular file (following symbolic links) this process may execute.
    package static func isExecutableFile(_ path: String) -> Bool {
        guard case .success(let info) = sys_stat(path), info.st_mode & S_IFMT == S_IFREG else { return false }
        if case .success = sys_access(path, X_OK) { return true }
        return false
    }

    /// One entry of a search path.
    private struct Entry: Sendable {
        var directory: String
        var isAbsolute: Bool
        /// A `%` in it, which dash reads as a marker (`%builtin`) rather than a directory.
        var hasShellMarker: Bool

        init(_ directory: some StringProtocol) {
            self.directory = String(directory)
            isAbsolute = directory.hasPrefix("/")
            hasShellMarker = directory.contains("%")
        }
    }

    /// The entries of `searchPath`, empty ones kept. Split once per distinct `PATH`, not per
    /// firing: a `run:` command searches on every firing.
    private static func split(_ searchPath: String) -> [Entry] {
        if let known = splitPaths.withLock({ $0[searchPath] }) { return known }
        let split = searchPath.split(separator: ":", omittingEmptySubsequences: false).map(Entry.init)
        splitPaths.withLock { cache in
            // A handful of distinct PATHs in practice (the daemon's, a rule's `env:`); never unbounded.
            if cache.count >= 64 { cache.removeAll() }
            cache[searchPath] = split
        }
        return split
    }

    private static let splitPaths = Mutex<[String: [Entry]]>([:])
}
