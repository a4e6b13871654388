/// The fuzz targets: each takes arbitrary bytes and feeds them to one area of netrules the way
/// the real code would receive them.
///
/// A target returns normally for every input, whatever it holds. A crash (a trap, an address
/// sanitizer report, a failed consistency check below) is a bug in netrules, or in the target.
/// The libFuzzer driver (`Fuzz/Sources/netrules-fuzz`, `scripts/fuzz`) and the regression test
/// (`NetRulesFuzzingTests`, replaying `Fuzz/Corpus` and `Fuzz/Regressions`) both run these.
package enum FuzzTargets {
    /// The targets by name; the names are also the folders of `Fuzz/Corpus` and `Fuzz/Regressions`.
    package static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "rules": RulesTarget.run,
        "timeline": TimelineTarget.run,
        "text": TextTarget.run,
        "plugin": PluginTarget.run,
        "control": ControlTarget.run,
        "netlink": NetlinkTarget.run,
        "nl80211": NL80211Target.run,
        "icmp": ICMPTarget.run,
        "portal-http": PortalHTTPTarget.run,
    ]

    /// The target names, sorted.
    package static var names: [String] { all.keys.sorted() }
}

/// Keeps a result alive so the optimizer cannot drop the work that produced it.
@inline(never)
func keep<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Stops the process when a property the code promises does not hold: a fuzzer finding.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property failed: \(message())") }
}
