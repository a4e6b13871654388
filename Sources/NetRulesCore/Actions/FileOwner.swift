/// `owner:` of a `write:` action: the account the file is given to, and its group.
///
/// The account is read as `run:`'s `user:` is (`active` is the user of the active local
/// graphical session when the action runs); without a group the file gets the account's primary
/// group.
public struct FileOwner: Hashable, Sendable, CustomStringConvertible {
    /// The account, as `user:` names one.
    public var user: ActionUser
    /// `user:group`'s group name; nil for the account's primary group.
    public var group: String?

    /// Creates an owner.
    ///
    /// - Parameters:
    ///   - user: the account the file is given to.
    ///   - group: the group's name; nil for the account's primary group.
    public init(user: ActionUser, group: String? = nil) {
        self.user = user
        self.group = group
    }

    /// Reads `user` or `user:group`; nil when the text is neither (an empty part, a second `:`).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), !parts.contains(where: \.isEmpty) else { return nil }
        self.init(user: ActionUser(parts[0]), group: parts.count == 2 ? parts[1] : nil)
    }

    /// `user` or `user:group`, as written.
    public var description: String {
        group.map { "\(user):\($0)" } ?? user.description
    }
}
