import Foundation
import NetRulesActions
import NetRulesConfig
import NetRulesCore

/// Reads rule files from disk and loads them, reporting diagnostics the way every command does.
enum RuleFiles {
    /// The default rule files of the daemon: `/etc/netrules/*.yaml`.
    static let defaultDirectory = "/etc/netrules"

    /// Expands directories to their `*.yaml`/`*.yml` files (sorted), keeps files as given.
    static func expand(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandError.runtime("cannot read '\(path)': no such file or directory")
            }
            if isDirectory.boolValue {
                let entries = (try? fm.contentsOfDirectory(atPath: path)) ?? []
                files += entries.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map {
                    (path as NSString).appendingPathComponent($0)
                }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Reads and loads the files; throws only when a file cannot be read.
    static func load(_ paths: [String], environment: [String: String]) throws -> LoadResult {
        var sources: [RuleSource] = []
        for file in try expand(paths) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandError.runtime("cannot read '\(file)': permission denied or not a regular file")
            }
            sources.append(RuleSource(file: file, bytes: Array(data)))
        }
        let searchPath = environment["PATH"]
        let loader = RuleLoader(
            findActionPlugin: { name, dirs in ActionCatalog.findPlugin(named: name, directories: dirs, path: searchPath) },
            findObserverPlugin: { name, dirs in
                ActionCatalog.findExecutable("netrules-observer-\(name)", directories: dirs, path: searchPath)
            }
        )
        return loader.load(sources)
    }
}

