/// An error that can say more than its one-line description: its code, where it was thrown and
/// what caused it (STYLE §7).
///
/// The runtime error structs of every target conform (`ActionError`, `HTTPError`, `ICMPError`,
/// `ControlSocketError`, the daemon's `StateFileError`), so a cause chain renders in full whichever
/// targets its links come from, and `Logger.log(_:_:error:)` writes this detailed form at `debug`
/// beside the one-line form. A conforming type states its parts; the rendering is written once,
/// here.
public protocol DetailedError: Error, CustomStringConvertible {
    associatedtype Code: CustomStringConvertible
    /// What kind of failure this is.
    var code: Code { get }
    /// What failed, in words a user reads, without the cause.
    var message: String { get }
    /// The error this one wraps; nil by default.
    var underlyingError: (any Error)? { get }
    /// Extra facts for the detailed form only (such as curl's code); empty by default.
    var detailNotes: [String] { get }
    /// Where the error was thrown (`#fileID`).
    var file: String { get }
    /// Where the error was thrown (`#line`).
    var line: Int { get }
    /// The message with the code and throw site, then, line by line, the causes.
    var detailedDescription: String { get }
}

extension DetailedError {
    /// No cause.
    public var underlyingError: (any Error)? { nil }
    /// No notes.
    public var detailNotes: [String] { [] }

    /// `message (code, notes…, at file:line)`, then a `caused by:` line per cause, each as detailed
    /// as it can be.
    public var detailedDescription: String {
        let parts = ["\(code)"] + detailNotes + ["at \(file):\(line)"]
        return Self.withCauses("\(message) (\(parts.joined(separator: ", ")))", underlyingError)
    }

    /// `head`, then `caused by:` lines for the cause and its own causes, each as detailed as it can be.
    public static func withCauses(_ head: String, _ cause: (any Error)?) -> String {
        guard let cause else { return head }
        let inner = (cause as? any DetailedError)?.detailedDescription ?? "\(cause)"
        return head + "\n  caused by: " + inner
    }
}
