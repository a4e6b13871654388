/// Crash-safe file replacement for other modules (the daemon's persisted state).
///
/// The same mechanism the `write` action uses: a temporary file in the same directory, fsync,
/// rename, fsync of the directory.
package enum DurableFile {
    /// Replaces `path` with `contents` atomically; creates missing parent directories.
    /// - Parameter sync: fsync file and directory (survives power loss); without it the
    ///   replacement still survives the process being killed at any instant.
    /// - Throws: `ActionError` with the failing system call as its cause.
    package static func replace(_ path: String, with contents: [UInt8], mode: UInt32 = 0o600, sync: Bool = true)
        throws(ActionError)
    {
        do {
            try AtomicFile.replace(path, with: contents, mode: mode, sync: sync)
        } catch {
            throw ActionError(.ioFailed, "cannot write '\(path)'", cause: error)
        }
    }
}
