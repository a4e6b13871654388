import Foundation
@preconcurrency import Glibc
import NetRulesTesting

/// Wi-Fi facts for the daemon, from an exec observer plugin the test drives.
///
/// This kernel has no cfg80211/nl80211 (and no `mac80211_hwsim`), so the daemon's own Wi-Fi
/// observer can never report an SSID here. Instead the rule file lists this plugin under
/// `observers:`; it is `tail -F` on a file, and ``report(ssid:bssid:)`` appends a line to that
/// file, which the daemon merges exactly as it would facts from nl80211. `tail -n 1` means a
/// restarted plugin (or daemon) reports the latest state only, not the whole history.
struct WiFiPlugin {
    /// The plugin's executable.
    let script: String
    /// The file of JSON lines the plugin relays.
    let feed: String

    init(in testbed: Testbed) throws {
        feed = testbed.path("wifi.jsonl")
        guard FileManager.default.createFile(atPath: feed, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: feed])
        }
        script = try testbed.write(
            "#!/bin/sh\n# A stand-in for nl80211, which this kernel lacks.\nexec tail -n 1 -F '\(feed)'\n",
            to: "wifi-observer", executable: true)
    }

    /// The `observers:` section naming this plugin.
    var observersYAML: String {
        """
        observers:
          - { name: wifi-test, command: ["\(script)"] }

        """
    }

    /// Reports the Wi-Fi state; `nil` is known absent (not associated), as nl80211 would say.
    func report(ssid: String?, bssid: String?) throws {
        func json(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
        try append(#"{"ssid": \#(json(ssid)), "bssid": \#(json(bssid))}"#)
    }

    /// Appends one line of facts in a single write, so the plugin never relays half a line.
    func append(_ line: String) throws {
        let fd = open(feed, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw TestError("open \(feed): errno \(errno)") }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw TestError("write \(feed): errno \(errno)") }
    }
}
