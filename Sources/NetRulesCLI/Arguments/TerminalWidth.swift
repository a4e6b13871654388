@preconcurrency internal import Glibc
internal import NetRulesSystem

/// The width, in columns, to which help text is wrapped.
///
/// The lookup order is swift-argument-parser's and environ(7)'s: the `COLUMNS` variable, which users set to override
/// the real size, then the terminal size of standard output, then 80 for pipes and files.
package enum TerminalWidth {
    /// The width used when neither `COLUMNS` nor a terminal gives one.
    package static let fallback = 80

    /// The width to wrap help text to now.
    ///
    /// - Parameter environment: The process environment (injected so tests control `COLUMNS`).
    /// - Returns: `COLUMNS` if it is set to a positive number, else the tty width of standard output
    ///   (ioctl `TIOCGWINSZ`), else 80.
    package static func current(environment: [String: String]) -> Int {
        resolve(columns: environment["COLUMNS"], terminalWidth: standardOutputTerminalWidth())
    }

    /// The width a table narrows to (`Table.render(width:)`): `COLUMNS`, else the terminal's;
    /// nil for a pipe or a file, whose readers (scripts, `grep`) get one row a line.
    /// - Parameter isTerminal: Whether the command's standard output is a terminal.
    package static func forTables(environment: [String: String], isTerminal: Bool) -> Int? {
        columns(environment["COLUMNS"]) ?? (isTerminal ? standardOutputTerminalWidth() : nil)
    }

    /// The pure decision behind ``current(environment:)``, separated so tests need no terminal.
    ///
    /// - Parameters:
    ///   - columns: The `COLUMNS` variable, if set.
    ///   - terminalWidth: The width reported by the terminal, if standard output is one.
    /// - Returns: The width to use.
    static func resolve(columns: String?, terminalWidth: Int?) -> Int {
        if let width = Self.columns(columns) {
            return width
        }
        if let terminalWidth, terminalWidth > 0 {
            return terminalWidth
        }
        return fallback
    }

    /// `COLUMNS` as a width: a positive number, spaces around it allowed; nil otherwise.
    private static func columns(_ value: String?) -> Int? {
        guard let value, let width = Int(value.trimmingSpaces), width > 0 else { return nil }
        return width
    }

    /// The column count of the terminal on standard output, or `nil` when it is not a terminal.
    static func standardOutputTerminalWidth() -> Int? {
        switch sys_ioctl_TIOCGWINSZ(standardOutputFileDescriptor) {
        case .success(let size):
            // A pseudo-terminal that was never sized reports 0 columns; treat it like no terminal.
            return size.ws_col > 0 ? Int(size.ws_col) : nil
        case .failure:
            return nil
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, which shells can leave around `COLUMNS`.
    fileprivate var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
