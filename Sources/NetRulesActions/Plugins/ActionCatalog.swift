@preconcurrency import Glibc
import NetRulesSystem

/// Finds the executables behind action names that are not built in.
package enum ActionCatalog {
    /// The built-in action kinds; every other name is a plugin.
    package static let builtInKinds: Set<String> = ["run", "webhook", "write", "mqtt"]

    /// The executable file name for a plugin action: `netrules-action-NAME`.
    package static func executableName(for name: String) -> String { "netrules-action-\(name)" }

    /// Looks up the executable for plugin action `name`.
    ///
    /// Searches `directories` (the rule files' top-level `plugins:` list, `~` expanded) in order,
    /// then each directory of `path` (a `PATH`-style, colon-separated list; empty entries are
    /// skipped rather than meaning the current directory). A candidate must be a regular file the
    /// daemon may execute. A name that could escape the directory (`/`, `..`, NUL, empty) finds nothing.
    /// - Parameters:
    ///   - named: The action's name as written in the rule (`notify` for `netrules-action-notify`).
    ///   - directories: Plugin directories, searched first.
    ///   - path: The `PATH` to search afterwards, or nil for none.
    /// - Returns: The absolute path of the executable, or nil when there is none.
    package static func findPlugin(named name: String, directories: [String], path: String?) -> String? {
        guard isValidName(name) else { return nil }
        return findExecutable(executableName(for: name), directories: directories, path: path)
    }

    /// Looks up an executable file called `fileName` the same way: `directories`, then `path`, by
    /// `ExecutableSearch` with only absolute directories. Observer plugins
    /// (`netrules-observer-NAME`) are found with it too.
    package static func findExecutable(_ fileName: String, directories: [String], path: String?) -> String? {
        ExecutableSearch.find(
            fileName, in: directories.map(PathExpansion.expandingTilde), along: path ?? "", entries: .absoluteOnly)
    }

    /// Whether `name` can name a plugin: letters, digits, `-` and `_`, starting with a letter or digit.
    package static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIIAlphanumeric else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" || $0 == "_" }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}
