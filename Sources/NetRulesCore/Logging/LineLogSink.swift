/// Writes each record's message alone, with a newline, through a closure: for commands whose
/// standard error shows plain sentences (`simulate`, `watch`), not the daemon's log lines.
///
/// The level, label and metadata are left out; the logger's level still decides what is written.
package struct LineLogSink: LogSink {
    private let write: @Sendable (String) -> Void

    /// A sink that hands `write` each message followed by `"\n"`.
    package init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    package func write(_ record: Logger.Record) {
        write(record.message + "\n")
    }
}
