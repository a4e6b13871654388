/// The anchor and tag written before a node; rule files allow neither, so they are kept only to report them.
struct YAMLNodeProperties {
    var anchor: String?

    /// The tag as libyaml resolved it, for example `tag:yaml.org,2002:str` for `!!str`.
    var tag: String?

    /// The tag as a user would have written it: `!!str` rather than `tag:yaml.org,2002:str`.
    var tagAsWritten: String? {
        guard let tag else { return nil }
        let corePrefix = "tag:yaml.org,2002:"
        return tag.hasPrefix(corePrefix) ? "!!" + tag.dropFirst(corePrefix.count) : tag
    }
}
