/// A small structured logger shaped like swift-log's.
///
/// Libraries accept a `Logger` and never build one; the daemon builds it with a sink (stderr,
/// or memory in tests). Messages are autoclosures, so a message below the level costs nothing.
/// Metadata keys are dotted (`rule.id`, `fact.key`, `action.kind`, `error`). Never put secrets
/// in messages or metadata, and quote network-supplied strings (`Logger.quoted`).
public struct Logger: Sendable {
    /// Severity, lowest first.
    public enum Level: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        /// Lower severities sort first: `trace` < `debug` < … < `critical`.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name as log lines and the command line write it.
        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }
    }

    /// One log record, as sinks receive it.
    public struct Record: Sendable {
        /// How severe the record is.
        public var level: Level
        /// The label of the logger that wrote it.
        public var label: String
        /// The message, already built.
        public var message: String
        /// The logger's metadata followed by the call's, as dotted keys and values, in order.
        public var metadata: [(String, String)]
        /// The `#fileID` of the logging call.
        public var file: String
        /// The line of the logging call.
        public var line: Int
    }

    /// The label of the component that logs (`netrules.daemon`, `netrules.probes`).
    public var label: String
    /// Records below this level are dropped before their message is built.
    public var level: Level
    /// Metadata added to every record.
    public var metadata: [(String, String)] = []
    private let sink: any LogSink

    /// Creates a logger that writes records at `level` or above to `sink`.
    ///
    /// - Parameters:
    ///   - label: the component that logs, such as `netrules.daemon`.
    ///   - level: the lowest level kept; `notice` by default, as the daemon shows.
    ///   - sink: where records go; it is shared by every `child` logger.
    public init(label: String, level: Level = .notice, sink: any LogSink) {
        self.label = label
        self.level = level
        self.sink = sink
    }

    /// A logger for a sub-component, sharing the sink and level.
    public func child(_ label: String, metadata: [(String, String)] = []) -> Logger {
        var copy = self
        copy.label = label
        copy.metadata += metadata
        return copy
    }

    /// Writes a record at `level`, if `level` is at or above this logger's; only then are the message
    /// and metadata built.
    ///
    /// - Parameters:
    ///   - metadata: pairs added after the logger's own metadata.
    ///   - file: the calling file; leave the default.
    ///   - line: the calling line; leave the default.
    public func log(
        _ level: Level, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [(String, String)] = [],
        file: String = #fileID, line: Int = #line
    ) {
        guard level >= self.level else { return }
        sink.write(
            Record(
                level: level, label: label, message: message(), metadata: self.metadata + metadata(), file: file,
                line: line))
    }

    /// Writes `message: error` at `level`, and, when `debug` records are written, the error's
    /// detailed form (code, throw site, the chain of causes: `DetailedError`) at `debug`.
    ///
    /// The one-line form is for the person reading the log; the detailed form is for whoever
    /// debugs it, so it stays below the daemon's default level.
    public func log(
        _ level: Level, _ message: @autoclosure () -> String, error: any Error,
        metadata: @autoclosure () -> [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        let detailsWanted = Level.debug >= self.level && error is any DetailedError
        guard level >= self.level || detailsWanted else { return }
        let text = message()
        let pairs = metadata()
        log(level, "\(text): \(error)", metadata: pairs, file: file, line: line)
        if detailsWanted, let detailed = error as? any DetailedError {
            log(.debug, "\(text): \(detailed.detailedDescription)", metadata: pairs, file: file, line: line)
        }
    }

    /// Logs at `trace`: step-by-step detail (see `log`).
    public func trace(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.trace, m(), metadata: metadata, file: file, line: line)
    }
    /// Logs at `debug`: detail for diagnosing a problem (see `log`).
    public func debug(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.debug, m(), metadata: metadata, file: file, line: line)
    }
    /// Logs at `info`: routine events, the highest level libraries use (see `log`).
    public func info(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.info, m(), metadata: metadata, file: file, line: line)
    }
    /// Logs at `notice`: significant normal events, shown by the daemon by default (see `log`).
    public func notice(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.notice, m(), metadata: metadata, file: file, line: line)
    }
    /// Logs at `warning`: something went wrong, and work goes on (see `log`).
    public func warning(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.warning, m(), metadata: metadata, file: file, line: line)
    }
    /// Logs at `error`: an operation failed (see `log`).
    public func error(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.error, m(), metadata: metadata, file: file, line: line)
    }
    /// Logs at `critical`: the process cannot go on as it should (see `log`).
    public func critical(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.critical, m(), metadata: metadata, file: file, line: line)
    }

    /// Quotes a network-supplied string for a log line: `"Office"`, with control and non-UTF-8
    /// bytes escaped, so an SSID cannot forge log lines.
    public static func quoted(_ value: FactValue) -> String {
        JSONValue.string(value.plainText).compact
    }

    /// A logger that drops everything.
    public static let disabled = Logger(label: "disabled", level: .critical, sink: DiscardingLogSink())
}

/// Where log records go. Sinks must be safe to call from any task or thread.
public protocol LogSink: Sendable {
    func write(_ record: Logger.Record)
}

/// Drops every record.
public struct DiscardingLogSink: LogSink {
    /// Creates a sink that drops every record.
    public init() {}
    /// Drops `record`.
    public func write(_ record: Logger.Record) {}
}
