/// An error that can say more than its one-line description: where it was thrown and what caused it.
///
/// Errors built the STYLE §7 way (code, message, cause, throw site) conform, so a cause chain
/// renders in full whichever targets its links come from.
public protocol DetailedError: Error, CustomStringConvertible {
    /// The description with the throw site and, line by line, the causes.
    var detailedDescription: String { get }
}

extension DetailedError {
    /// `head`, then `caused by:` lines for the cause and its own causes, each as detailed as it can be.
    public static func withCauses(_ head: String, _ cause: (any Error)?) -> String {
        guard let cause else { return head }
        let inner = (cause as? any DetailedError)?.detailedDescription ?? "\(cause)"
        return head + "\n  caused by: " + inner
    }
}
