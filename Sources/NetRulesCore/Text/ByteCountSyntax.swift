/// Parses and prints sizes as the command line writes them: `512`, `64KiB`, `16MiB`, `1GiB`.
///
/// Units are powers of 1024 and may be spelt `K`/`KiB`, `M`/`MiB`, `G`/`GiB` (any case); a number
/// without a unit is bytes. `KB` and `MB` are refused rather than read as 1,000 or 1,024: which one
/// the writer meant cannot be known, and a limit off by 5 % is a surprise nobody looks for.
public enum ByteCountSyntax {
    /// The units in bytes, longest spelling first so `KiB` is not read as `K` followed by garbage.
    private static let units: [(suffix: String, bytes: Int)] = [
        ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30),
        ("b", 1),
    ]

    /// The largest size parsed: 1 TiB, far beyond any limit netrules has, and far from overflow.
    public static let maximum = 1 << 40

    /// Parses a size in bytes; nil when the text is not one, is fractional, or exceeds `maximum`.
    public static func parse(_ text: String) -> Int? {
        let trimmed = Substring(text.trimmingSpaces)
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        // Twenty digits overflow Int; a size that long is refused as too large anyway.
        guard !digits.isEmpty, digits.count <= 13, let number = Int(digits) else { return nil }
        let suffix = trimmed.dropFirst(digits.count).lowercased()
        let scale: Int
        if suffix.isEmpty {
            scale = 1
        } else if let unit = units.first(where: { $0.suffix == suffix }) {
            scale = unit.bytes
        } else {
            return nil
        }
        guard number <= maximum / scale else { return nil }
        return number * scale
    }

    /// Prints a size the way a person reads it: `512 B`, `1.5 KiB`, `16 MiB`, `1 GiB` (at most one
    /// decimal, none when it would be `.0`).
    public static func format(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= size {
            let tenths = (bytes * 10 + size / 2) / size
            return (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + " " + unit
        }
        return "\(bytes) B"
    }
}
