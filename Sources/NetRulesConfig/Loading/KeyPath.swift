/// Where a value sits in a rule file, as users read it: `rules[2].when.all[0].ssid`.
///
/// Built for every node the schema layer visits but printed only for diagnostics, so it is a
/// chain of shared links (one small allocation per step) and renders its text on demand.
public struct KeyPath: Hashable, Sendable, CustomStringConvertible {
    private indirect enum Link: Sendable {
        case root
        case key(Link, String)
        case index(Link, Int)
    }

    private let link: Link

    /// The file's root.
    public static let root = KeyPath(link: .root)

    private init(link: Link) { self.link = link }

    /// The path of a mapping key below this one.
    public func key(_ name: String) -> KeyPath {
        KeyPath(link: .key(link, name))
    }

    /// The path of a list item below this one (0-based, as in JSON).
    public func index(_ i: Int) -> KeyPath {
        KeyPath(link: .index(link, i))
    }

    /// The path as diagnostics print it, such as `rules[0].when.ssid`.
    public var description: String {
        var parts: [String] = []
        var current = link
        while true {
            switch current {
            case .root:
                return parts.reversed().joined()
            case .key(let parent, let name):
                if case .root = parent { parts.append(name) } else { parts.append("." + name) }
                current = parent
            case .index(let parent, let i):
                parts.append("[\(i)]")
                current = parent
            }
        }
    }

    /// Paths are equal when they print the same.
    public static func == (lhs: KeyPath, rhs: KeyPath) -> Bool { lhs.description == rhs.description }
    /// Hashes the printed path, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
