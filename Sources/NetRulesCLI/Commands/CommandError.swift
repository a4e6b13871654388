/// A command's failure, mapped to the documented exit codes.
///
/// A bad option value is not one of these: a command throws a ``UsageError`` for it (see
/// ``ParsedArguments/invalidValue(_:)``), which exits 64 like an unknown option.
package enum CommandError: Error {
    /// A runtime failure: exit 1.
    case runtime(String)
    /// An input file that is missing or unreadable: exit 66.
    case noInput(String)
}

/// The documented exit codes (STYLE §22).
package enum ExitCode {
    package static let success: Int32 = 0
    package static let failure: Int32 = 1
    /// `portal`'s verdict: a captive portal intercepts the probes.
    package static let portal: Int32 = 2
    /// `portal`'s verdict: no probe got a conclusive answer.
    package static let offline: Int32 = 3
    /// A usage error (EX_USAGE), a bad option value included.
    package static let usage: Int32 = 64
    /// An invalid rule file (EX_DATAERR).
    package static let invalidRules: Int32 = 65
    /// An input file that is missing or unreadable (EX_NOINPUT).
    package static let noInput: Int32 = 66
}
