/// Renders a substituted value for the quoting context it stands in, so that `/bin/sh` reads
/// exactly the value's bytes and nothing else.
///
/// A command line is a C string, so a value is cut at its first NUL byte in every context (the
/// environment variables are too; the JSON document on standard input carries all of it).
public enum ShellQuoting {
    /// The bytes to put in the command line for `value` in `context`.
    public static func render(_ value: [UInt8], in context: ShellQuotingContext) -> [UInt8] {
        let value = value.prefix { $0 != 0 }
        switch context {
        case .unquoted:
            // Inside single quotes the shell interprets nothing (no `$`, backtick, `\` or newline
            // handling), so every byte but `'` itself is literal, non-UTF-8 bytes included.
            return [quote] + closingAndReopening(value) + [quote]
        case .singleQuoted:
            return closingAndReopening(value)
        case .doubleQuoted:
            // POSIX: inside double quotes a backslash keeps its meaning only before `$`, `` ` ``,
            // `"`, `\` and newline. Escaping the first four makes them literal; a newline in the
            // value cannot follow an unescaped backslash, so it stays a literal newline too.
            var out: [UInt8] = []
            out.reserveCapacity(value.count + 8)
            for byte in value {
                if byte == dollar || byte == backtick || byte == doubleQuote || byte == backslash {
                    out.append(backslash)
                }
                out.append(byte)
            }
            return out
        }
    }

    /// Single-quotes a whole value (the unquoted rendering); kept for callers that build argv-like
    /// command lines themselves.
    public static func quote(_ value: [UInt8]) -> [UInt8] { render(value, in: .unquoted) }

    /// `'` written as `'\''`: close the quotes, an escaped quote, reopen.
    private static func closingAndReopening(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(value.count + 2)
        for byte in value {
            if byte == quote {
                out += [quote, backslash, quote, quote]
            } else {
                out.append(byte)
            }
        }
        return out
    }

    private static let quote = UInt8(ascii: "'")
    private static let doubleQuote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let dollar = UInt8(ascii: "$")
    private static let backtick = UInt8(ascii: "`")
}
