/// A command's failure, mapped to the documented exit codes.
package enum CommandError: Error {
    /// A runtime failure: exit 1.
    case runtime(String)
}

/// The documented exit codes.
package enum ExitCode {
    package static let success: Int32 = 0
    package static let failure: Int32 = 1
    /// A usage error (EX_USAGE).
    package static let usage: Int32 = 64
    /// An invalid rule file (EX_DATAERR).
    package static let invalidRules: Int32 = 65
}
