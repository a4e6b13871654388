import NetRulesActions
import NetRulesCore

extension RunCommand {
    /// The options that bound the webhook outbox (`OutboxLimits` explains the defaults).
    static let outboxOptions: [OptionSpec] = [
        OptionSpec(
            long: "outbox-limit", valueName: "n",
            help:
                "How many webhook deliveries may wait in <state-dir>/outbox, all rules together; beyond it the oldest is moved to outbox/failed/.",
            defaultValue: "\(OutboxLimits.default.pending)"),
        OptionSpec(
            long: "outbox-rule-limit", valueName: "n",
            help:
                "How many webhook deliveries of one rule may wait; beyond it the rule's oldest is moved to outbox/failed/.",
            defaultValue: "\(OutboxLimits.default.pendingPerRule)"),
        OptionSpec(
            long: "outbox-bytes", valueName: "size",
            help:
                "How much the waiting deliveries may take (bytes, or with K, M, G for KiB, MiB, GiB); beyond it the oldest is moved to outbox/failed/.",
            defaultValue: "\(OutboxLimits.default.pendingBytes >> 20)MiB"),
        OptionSpec(
            long: "outbox-failed-limit", valueName: "n",
            help: "How many deliveries that failed for good outbox/failed/ keeps; the oldest beyond it are deleted.",
            defaultValue: "\(OutboxLimits.default.failed)"),
        OptionSpec(
            long: "outbox-failed-age", valueName: "duration",
            help: "How long outbox/failed/ keeps a delivery that failed (12h, 30d); older ones are deleted.",
            defaultValue: DurationSyntax.format(OutboxLimits.default.failedAge)),
    ]

    /// The outbox limits the options ask for, or the usage error of the first bad value.
    static func outboxLimits(_ arguments: ParsedArguments) -> Result<OutboxLimits, OutboxUsageError> {
        var limits = OutboxLimits.default
        let counts: [(String, WritableKeyPath<OutboxLimits, Int>, ClosedRange<Int>)] = [
            ("outbox-limit", \.pending, 1...OutboxLimits.maximumCount),
            ("outbox-rule-limit", \.pendingPerRule, 1...OutboxLimits.maximumCount),
            ("outbox-failed-limit", \.failed, 0...OutboxLimits.maximumCount),
        ]
        for (name, key, range) in counts {
            guard let text = arguments.value(name) else { continue }
            guard let value = Int(text), range.contains(value) else {
                return .failure(
                    OutboxUsageError(
                        "--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
                )
            }
            limits[keyPath: key] = value
        }
        if let text = arguments.value("outbox-bytes") {
            let range = OutboxLimits.pendingBytesRange
            guard let bytes = ByteCountSyntax.parse(text), range.contains(bytes) else {
                return .failure(
                    OutboxUsageError(
                        "--outbox-bytes takes a size from \(ByteCountSyntax.format(range.lowerBound)) to "
                            + "\(ByteCountSyntax.format(range.upperBound)) such as 16MiB or 512K, not '\(text)'"))
            }
            limits.pendingBytes = bytes
        }
        if let text = arguments.value("outbox-failed-age") {
            guard let age = DurationSyntax.parse(text), age > .zero else {
                return .failure(
                    OutboxUsageError("--outbox-failed-age takes a duration such as 30d or 12h, not '\(text)'"))
            }
            limits.failedAge = age
        }
        return .success(limits)
    }

    /// A bad value for one of the outbox options: the message after `Error: `.
    struct OutboxUsageError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
