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

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

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
        public var level: Level
        public var label: String
        public var message: String
        public var metadata: [(String, String)]
        public var file: String
        public var line: Int
    }

    /// The label of the component that logs (`netrules.daemon`, `netrules.probes`).
    public var label: String
    /// Records below this level are dropped before their message is built.
    public var level: Level
    /// Metadata added to every record.
    public var metadata: [(String, String)] = []
    private let sink: any LogSink

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

    public func trace(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.trace, m(), metadata: metadata, file: file, line: line)
    }
    public func debug(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.debug, m(), metadata: metadata, file: file, line: line)
    }
    public func info(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.info, m(), metadata: metadata, file: file, line: line)
    }
    public func notice(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.notice, m(), metadata: metadata, file: file, line: line)
    }
    public func warning(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.warning, m(), metadata: metadata, file: file, line: line)
    }
    public func error(
        _ m: @autoclosure () -> String, metadata: [(String, String)] = [], file: String = #fileID, line: Int = #line
    ) {
        log(.error, m(), metadata: metadata, file: file, line: line)
    }
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
    public init() {}
    public func write(_ record: Logger.Record) {}
}
