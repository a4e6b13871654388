@preconcurrency import Glibc
import NetRulesCore
import Testing

@testable import NetRulesActions

/// Builders shared by the action tests.
enum Fixtures {
    /// A firing of `rule` with the given facts.
    static func firing(
        rule: String = "office", edge: Edge = .enter, facts: [FactKey: FactValue?] = [:], actions: [ActionSpec] = []
    ) -> Firing {
        var store = FactStore()
        store.apply(FactUpdate(values: facts))
        return Firing(rule: rule, edge: edge, at: .zero, facts: store, actions: actions)
    }

    static func context(_ firing: Firing, environment: [String: String] = ["PATH": "/usr/bin:/bin"]) -> ActionContext {
        // UTC pinned: `{{time}}` must not depend on the machine running the tests.
        ActionContext(firing: firing, wallTime: "2025-01-02T03:04:05Z", environment: environment, utcOffset: { _ in 0 })
    }

    static func template(_ text: String) -> Template {
        do { return try Template(text) } catch { fatalError("bad template in a test: \(text): \(error.message)") }
    }

    static func command(_ text: String) -> ShellCommandTemplate {
        do { return try ShellCommandTemplate(text) } catch {
            fatalError("bad command in a test: \(text): \(error.issues)")
        }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer[..<n]
        }
        return out
    }

    static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        precondition(fd >= 0, "cannot create \(path)")
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

/// A fresh directory under /tmp, removed with everything in it when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        var template = Array("/tmp/netrules-actions-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        var child = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("rm"), strdup("-rf"), strdup(path), nil]
        if posix_spawn(&child, "/bin/rm", nil, nil, argv, nil) == 0 {
            var status: CInt = 0
            waitpid(child, &status, 0)
        }
        argv.forEach { free($0) }
    }
}

/// SSIDs an attacker might broadcast. Each must reach actions byte-exact and execute nothing.
/// Every entry that could run something would create the file `pwned` in the working directory.
enum HostileSSIDs {
    static let corpus: [[UInt8]] =
        [
            "$(touch pwned)", "`touch pwned`", "'; touch pwned; '", "\"; touch pwned; \"", "a\ntouch pwned",
            "x; touch pwned", "x | touch pwned", "x & touch pwned", "x && touch pwned", "${IFS}touch${IFS}pwned",
            "$HOME", "\\", "'", "''''", "\"", "-n", "--", "*", "~", "a\rb", "tab\there", "{{ssid}}", "%s%n%x",
            "> pwned", "<(touch pwned)", "!!", "é café ☕", "\u{202E}evil", " leading and trailing ",
        ].map { Array($0.utf8) } + [
            [0xFF, 0xFE, 0x80, 0x41],  // not UTF-8
            [0xC3, 0x28, 0x27, 0x3B, 0x60],  // invalid sequence, quote, semicolon, backtick
            [0xED, 0xA0, 0x80],  // a UTF-8-encoded surrogate: invalid
            Array("$(touch pwned)`touch pwned`';\"|&".utf8),  // 32 bytes, the maximum
            Array(repeating: 0x27, count: 32),  // 32 single quotes
        ]

    /// Portal URLs a captive portal might redirect to (the issue's own and variants of each attack).
    static let portalURLs: [[UInt8]] =
        [
            "http://192.0.2.1/login?next=$(touch${IFS}pwned)", "http://192.0.2.1/`touch pwned`",
            "http://192.0.2.1/a;touch pwned", "http://192.0.2.1/a|touch pwned", "http://192.0.2.1/a&&touch pwned",
            "http://192.0.2.1/a\ntouch pwned", "http://192.0.2.1/a\ntouch pwned\n",
            "http://192.0.2.1/\"; touch pwned; \"",
            "http://192.0.2.1/'; touch pwned; '", "http://192.0.2.1/\\\"$(touch pwned)", "--output=pwned",
            "http://192.0.2.1/${IFS}$(touch${IFS}pwned)", "http://192.0.2.1/\u{FF}\u{FE}",
        ].map { Array($0.utf8) } + [Array("http://192.0.2.1/".utf8) + [0xFF, 0x27, 0x60, 0x24, 0x28]]
}
