import NetRulesCore
import NetRulesProbes

/// `portal`'s document, as text and JSON: the verdict, `portal.url`, the deciding probe and every
/// other probe that finished.
///
/// The text shows what a portal sent (its `Location`, the errors its answer caused) through
/// ``TerminalText``: a portal is a hostile server, and its words must not drive the terminal.
enum PortalDocument {
    static func text(_ verdict: PortalVerdict, style: TerminalStyle = .plain) -> String {
        var lines = ["connectivity: " + style.paint(verdict: verdict.connectivity.rawValue)]
        if let url = verdict.portalURL { lines.append("portal.url: " + TerminalText.escaped(url)) }
        lines.append("why: " + TerminalText.escaped(why(verdict)))
        lines.append("time: \(formatMilliseconds(verdict.duration)) ms")
        for item in verdict.evidence {
            let deciding = item.url == verdict.decidingProbe?.url ? " (decided)" : ""
            var line = "probe " + TerminalText.escaped(item.url) + deciding + ": "
            if let status = item.status {
                line += "status \(status)"
            } else {
                line += TerminalText.escaped(item.error ?? "no answer")
            }
            if let location = item.location { line += ", Location " + TerminalText.escaped(location) }
            if let refusal = item.locationRefusal { line += ", Location refused: " + TerminalText.escaped(refusal) }
            line += ", \(formatMilliseconds(item.duration)) ms"
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// Why the verdict is what it is: the deciding probe's answer against what it expects, or
    /// that no probe answered conclusively.
    static func why(_ verdict: PortalVerdict) -> String {
        guard let deciding = verdict.decidingProbe, let reason = deciding.reason else {
            return verdict.evidence.isEmpty
                ? "no probe answered" : "no probe answered conclusively (each probe's line says what it got)"
        }
        return "\(deciding.url) answered \(reason)"
    }

    static func json(_ verdict: PortalVerdict) -> String {
        func evidence(_ item: PortalVerdict.Evidence) -> JSONValue {
            var object = JSONLine()
            object["url"] = .string(item.url)
            object["status"] = item.status.map { .int($0) } ?? .null
            object["location"] = item.location.map { .string($0) } ?? .null
            object["location_refused"] = item.locationRefusal.map { .string($0) } ?? .null
            object["error"] = item.error.map { .string($0) } ?? .null
            object["conclusion"] = item.conclusion.map { .string($0.rawValue) } ?? .null
            object["reason"] = item.reason.map { .string($0) } ?? .null
            object["time_ms"] = .milliseconds(item.duration)
            return object.json
        }
        var document = JSONLine()
        document["connectivity"] = .string(verdict.connectivity.rawValue)
        document["portal.url"] = verdict.portalURL.map { .string($0) } ?? .null
        document["time_ms"] = .milliseconds(verdict.duration)
        document["why"] = .string(why(verdict))
        document["decided_by"] = verdict.decidingProbe.map { .json(evidence($0)) } ?? .null
        document["probes"] = .json(.array(verdict.evidence.map(evidence)))
        return document.text
    }
}
