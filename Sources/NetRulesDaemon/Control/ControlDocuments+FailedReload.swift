import NetRulesCore
import NetRulesDaemonCore

extension ControlDocuments {
    /// `failed_reload`, the member a daemon adds to its `status` and `rules` answers (and `doctor
    /// --json` to its `reload` check) while its rule files have errors, keys sorted:
    /// `{"files":[{"errors":N,"file":PATH,"since":RFC3339}…],"problems":[…],"running_previous_rules":true,"since":RFC3339}`.
    ///
    /// `files` are the last reload's files with errors, by path, each with its error count and when
    /// a reload first found it broken; `problems` the errors in no file (a file refused for its owner
    /// or mode, a rule path that cannot be read); `since` when the first failed reload of the series
    /// was; `running_previous_rules` is always `true`: a failed reload keeps the rules that ran.
    package static func failedReload(_ failure: FailedReload) -> JSONValue {
        .object([
            (
                "files",
                .array(
                    failure.files.map { file in
                        .object([
                            ("errors", .number(Double(file.errors))), ("file", .string(file.path)),
                            ("since", .string(file.since)),
                        ])
                    })
            ),
            ("problems", .array(failure.problems.map(JSONValue.string))),
            ("running_previous_rules", .bool(true)), ("since", .string(failure.since)),
        ])
    }

    /// The `failed_reload` member of a document, nil when it has none. Its texts are as a terminal
    /// may show them: escaped by `TerminalText` (`JSONValue.plainText`).
    package static func failedReload(from member: JSONValue?) -> FailedReload? {
        guard let member, case .object = member else { return nil }
        func list(_ value: JSONValue?) -> [JSONValue] {
            guard case .array(let items)? = value else { return [] }
            return items
        }
        let since = member.member("since")?.plainText ?? ""
        return FailedReload(
            files: list(member.member("files")).map { file in
                FailedReload.File(
                    path: file.member("file")?.plainText ?? "?",
                    errors: file.member("errors")?.numberValue.map { Int($0) } ?? 0,
                    since: file.member("since")?.plainText ?? since)
            },
            problems: list(member.member("problems")).map(\.plainText), since: since)
    }
}
