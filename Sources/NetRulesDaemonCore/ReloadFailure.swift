/// The reloads that failed since the rules last loaded, as `DaemonCore` keeps them: which files
/// had errors and since when, in wall time. `status`, `rules` and `doctor` show it
/// (`FailedReload`) until a reload loads.
///
/// A series begins with the first failed reload after a load. Each failed reload replaces the
/// files and their counts with its own, and a file that already had errors keeps the time they
/// began, so "has errors since" stays true when the user saves again, still broken, or fixes one
/// file and breaks another.
package struct ReloadFailure: Sendable, Hashable {
    package struct File: Sendable, Hashable {
        package var path: String
        package var errors: Int
        package var since: WallTime
    }

    /// When the first reload of the series failed.
    package var since: WallTime
    /// The last reload's files with errors, by path.
    package var files: [File]
    /// The last reload's errors in no file: refused files, a rule path that cannot be read.
    package var problems: [String]

    /// The failure once the reload read at `wall` found what `report` says, after `previous` (nil
    /// when the rules loaded since).
    package init(_ report: LoadReport, at wall: WallTime, after previous: ReloadFailure?) {
        since = previous?.since ?? wall
        let began = Dictionary(
            (previous?.files ?? []).map { ($0.path, $0.since) }, uniquingKeysWith: { first, _ in first })
        files = report.errorsByFile.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { path, errors in
            File(path: path, errors: errors, since: began[path] ?? wall)
        }
        problems = report.refused + (report.readError.map { [$0] } ?? [])
    }

    /// As the control socket answers it: times in RFC 3339.
    package var shown: FailedReload {
        FailedReload(
            files: files.map { FailedReload.File(path: $0.path, errors: $0.errors, since: $0.since.rfc3339) },
            problems: problems, since: since.rfc3339)
    }
}
