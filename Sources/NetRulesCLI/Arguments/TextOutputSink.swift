/// A destination for command output: standard output, standard error, or a buffer in tests.
///
/// Commands write through a sink instead of calling `print` so that tests can capture exactly what a user would see,
/// and so that output from several tasks never interleaves mid-line.
package protocol TextOutputSink: AnyObject, Sendable {
    /// Writes `text` as is; no newline is added.
    ///
    /// Implementations must be safe to call from any thread and keep each call's text contiguous.
    ///
    /// - Parameter text: The text to write, usually ending with a newline.
    func write(_ text: String)

    /// Whether the destination is a terminal, for ``TerminalStyle``; false unless a sink knows better.
    var isTerminal: Bool { get }
}

extension TextOutputSink {
    /// Buffers, pipes in tests and files are not terminals.
    package var isTerminal: Bool { false }
}
