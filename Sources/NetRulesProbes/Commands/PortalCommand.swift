import NetRulesCore
import NetRulesHTTP

/// `netrules portal [--url URL…] [--json]`, as a library function.
///
/// Runs one classification and prints it with its evidence: the verdict, `portal.url`, the
/// deciding probe (URL, status, Location, time) and every other probe that finished. With
/// `--json`, one document.
public enum PortalCommand {
    /// Classifies the network once.
    ///
    /// - Parameters:
    ///   - urls: Probe URLs; empty uses the defaults (Apple's page and `generate_204`). A given
    ///     URL ending in `generate_204` expects an empty 204, any other a page reading `Success`.
    ///   - json: Print one JSON document instead of text.
    ///   - interface: Bind the probes to this interface; nil lets routing choose.
    ///   - timeout: The limit on each probe.
    ///   - output: Receives each stdout line.
    /// - Returns: 0 after a classification (whatever it is), 1 when there is nothing to probe.
    public static func run(
        urls: [String], json: Bool, interface: String? = nil, timeout: Duration = .seconds(5),
        output: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        let probes = urls.isEmpty ? ConnectivitySettings.defaultProbes : urls.map(probe(for:))
        guard !probes.isEmpty else { return 1 }
        let classifier = PortalClassifier(client: HTTPClient(), timeout: timeout, interface: interface)
        let verdict = await classifier.classify(probes)
        output(json ? document(verdict) : text(verdict))
        return 0
    }

    static func probe(for url: String) -> ConnectivitySettings.Probe {
        url.hasSuffix("generate_204")
            ? .init(url: url, expectedStatus: 204, expectedBody: nil)
            : .init(url: url, expectedStatus: 200, expectedBody: "Success")
    }

    static func text(_ verdict: PortalVerdict) -> String {
        var lines = ["connectivity: \(verdict.connectivity.rawValue)"]
        if let url = verdict.portalURL { lines.append("portal.url: \(url)") }
        lines.append("time: \(formatMilliseconds(verdict.duration)) ms")
        for item in verdict.evidence {
            let deciding = item.url == verdict.decidingProbe?.url ? " (decided)" : ""
            var line = "probe \(item.url)\(deciding): "
            if let status = item.status { line += "status \(status)" } else { line += item.error ?? "no answer" }
            if let location = item.location { line += ", Location \(location)" }
            line += ", \(formatMilliseconds(item.duration)) ms"
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func document(_ verdict: PortalVerdict) -> String {
        func evidence(_ item: PortalVerdict.Evidence) -> JSONValue {
            var object = JSONLine()
            object["url"] = .string(item.url)
            object["status"] = item.status.map { .int($0) } ?? .null
            object["location"] = item.location.map { .string($0) } ?? .null
            object["error"] = item.error.map { .string($0) } ?? .null
            object["conclusion"] = item.conclusion.map { .string($0.rawValue) } ?? .null
            object["time_ms"] = .milliseconds(item.duration)
            return object.json
        }
        var document = JSONLine()
        document["connectivity"] = .string(verdict.connectivity.rawValue)
        document["portal.url"] = verdict.portalURL.map { .string($0) } ?? .null
        document["time_ms"] = .milliseconds(verdict.duration)
        document["decided_by"] = verdict.decidingProbe.map { .json(evidence($0)) } ?? .null
        document["probes"] = .json(.array(verdict.evidence.map(evidence)))
        return document.text
    }
}
