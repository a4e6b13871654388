extension Condition {
    /// The whole condition on one line, `all(ssid in [XF-WORLD], bssid in [a4:2b:8c:92:47:3c])`:
    /// each node's label with its children in parentheses, for `doctor` and `explain`'s places,
    /// where a tree would not fit.
    public var inlineDescription: String {
        let children = self.children
        guard !children.isEmpty else { return description }
        return "\(description)(\(children.map(\.inlineDescription).joined(separator: ", ")))"
    }
}
