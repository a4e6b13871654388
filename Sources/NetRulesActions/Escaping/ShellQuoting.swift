/// Quoting for values substituted into a `/bin/sh -c` command line.
enum ShellQuoting {
    /// Wraps `bytes` in single quotes, writing each `'` as `'\''`.
    ///
    /// Inside single quotes the shell interprets nothing (no `$`, backtick, `\` or newline
    /// handling), so every byte but `'` itself is literal; that makes this the one quoting that is
    /// safe for attacker-chosen bytes, including non-UTF-8 ones. A command line is a C string, so
    /// a value is cut at its first NUL byte (the JSON document on stdin still carries all of it).
    static func quote(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "'")]
        out.reserveCapacity(bytes.count + 2)
        for byte in bytes {
            if byte == 0 { break }
            if byte == UInt8(ascii: "'") {
                out += Array("'\\''".utf8)
            } else {
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "'"))
        return out
    }
}
