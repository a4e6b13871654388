import NetRulesCore
import NetRulesDaemon
import NetRulesDaemonCore

extension DoctorCommand {
    /// The running daemon's rules: an error while its last reload failed (a rule file saved with
    /// errors, the previous rules still running), naming each file with its error count and since
    /// when, and carrying `failed_reload` in `--json`; nil when no daemon answers.
    static func reloadCheck(_ path: String, times: FailedReloadText = .system) async -> DoctorCheck? {
        // No answer means no daemon to ask, which the control-socket check reports.
        guard let client = try? ControlClient.connect(path: path, timeout: .seconds(2)),
            let answer = try? await client.response(to: ControlRequest.status.document)
        else { return nil }
        guard let member = answer.member("failed_reload"), let failure = ControlDocuments.failedReload(from: member)
        else { return .ok("reload", "the daemon's rules loaded without errors") }
        let fix =
            failure.files.isEmpty
            ? "fix what the line names; the daemon reloads when a rule file changes, or run netrules reload"
            : "run netrules check \(failure.files.map(\.path).joined(separator: " ")) and fix what it reports; "
                + "the daemon reloads when the file is saved"
        var check = DoctorCheck.error("reload", times.detail(failure), fix: fix)
        check.members = [("failed_reload", member)]
        return check
    }
}
