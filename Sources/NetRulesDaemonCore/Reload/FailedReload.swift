/// A reload that found errors, while no reload has loaded since: the daemon runs the rules it
/// had (STYLE §10). What `status`, `rules` and `doctor` show, as text and as `failed_reload`.
package struct FailedReload: Sendable, Hashable {
    /// A rule file with errors in the last reload.
    package struct File: Sendable, Hashable {
        package var path: String
        /// Its errors, those the daemon did not log one by one included.
        package var errors: Int
        /// When a reload first found it with errors, in this series of failed reloads (RFC 3339).
        package var since: String

        package init(path: String, errors: Int, since: String) {
            self.path = path
            self.errors = errors
            self.since = since
        }
    }

    /// The files with errors in the last reload, by path.
    package var files: [File]
    /// The last reload's errors that are in no file: a file refused for its owner or mode, a rule
    /// path that cannot be read.
    package var problems: [String]
    /// When the first reload of this series failed (RFC 3339): the previous rules have run since.
    package var since: String

    package init(files: [File], problems: [String], since: String) {
        self.files = files
        self.problems = problems
        self.since = since
    }
}
