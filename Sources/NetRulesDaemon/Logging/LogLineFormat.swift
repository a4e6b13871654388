import NetRulesCore
import NetRulesDaemonCore

/// How a log record becomes one line of text: the stderr sink's format.
///
/// `2026-11-29T09:00:00Z notice netrules.daemon: rules loaded files=2 dir="/etc/net rules"`. Under
/// journald the timestamp is left out (the journal stamps every line itself) and the line starts
/// with the syslog priority in angle brackets, `<5>notice netrules.daemon: …`, which journald
/// strips and stores as the entry's priority (sd-daemon(3), "SD_NOTICE").
///
/// A record is always exactly one line: control characters in the message and in metadata are
/// escaped, so no string (an SSID, a plugin's output) can start a forged line of its own.
package struct LogLineFormat: Sendable, Equatable {
    /// Whether lines start with an RFC 3339 UTC timestamp.
    package var includesTimestamp: Bool
    /// Whether lines start with `<N>`, the record's syslog priority, for journald.
    package var includesPriorityPrefix: Bool

    /// A format for a terminal or a file: timestamped, no priority prefix.
    package static let plain = LogLineFormat(includesTimestamp: true, includesPriorityPrefix: false)
    /// The format for journald's stdout/stderr stream: priority prefix, no timestamp.
    package static let journal = LogLineFormat(includesTimestamp: false, includesPriorityPrefix: true)

    /// Creates a format.
    package init(includesTimestamp: Bool, includesPriorityPrefix: Bool) {
        self.includesTimestamp = includesTimestamp
        self.includesPriorityPrefix = includesPriorityPrefix
    }

    /// Renders `record` as one line, without the trailing newline.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - time: The wall-clock time to show when the format has a timestamp.
    /// - Returns: The line.
    package func render(_ record: Logger.Record, at time: WallTime) -> String {
        var line = ""
        if includesPriorityPrefix { line += "<\(Self.syslogPriority(of: record.level))>" }
        if includesTimestamp { line += WallClock.rfc3339(time) + " " }
        line += "\(record.level) \(record.label): "
        line += TerminalText.escaped(record.message)
        for (key, value) in record.metadata {
            line += " " + TerminalText.escaped(key) + "=" + Self.quotedIfNeeded(value)
        }
        return line
    }

    /// The syslog priority of a level, as syslog(3) numbers them (`LOG_DEBUG` 7 … `LOG_CRIT` 2).
    ///
    /// `trace` has no syslog equivalent and shares `debug`'s 7.
    package static func syslogPriority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A metadata value as it appears after `key=`: bare when it is a plain word, otherwise in
    /// double quotes with `"`, `\` and control characters escaped (`"Café Wi-Fi"`, `"a\"b"`, `""`).
    ///
    /// A value is bare only when it is not empty and has no space, `"`, `\`, `=` or control
    /// character, so a reader can always split a line into `key=value` pairs.
    package static func quotedIfNeeded(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.unicodeScalars.contains { scalar in
                scalar == " " || scalar == "\"" || scalar == "\\" || scalar == "="
                    || TerminalText.needsEscaping(scalar)
                    || scalar.properties.isWhitespace
            }
        return needsQuotes ? TerminalText.quoted(value) : value
    }
}
