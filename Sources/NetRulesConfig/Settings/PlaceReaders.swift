import NetRulesCore

/// The reader for the top-level `places:` map.
extension ValidationContext {
    static let placeKeys = ["when", "verify", "verify_interval", "timeout", "description"]

    /// `places: { NAME: { when: CONDITION, verify: [{ https: HOST[:PORT] | URL, pin: PIN | [PINS] }],
    /// verify_interval: DURATION, timeout: DURATION } }`: each place with the mark of its name,
    /// and the hosts its conditions wrote inline.
    mutating func places(
        _ node: YAMLNode, _ path: KeyPath, registry: Registry, namedHosts: [String: HostDefinition]
    ) -> (places: [(PlaceDefinition, SourceMark)], inlineHosts: [String: HostDefinition]) {
        guard let m = mapping(node, path, what: "a mapping of place names to '{ when: ..., verify: [...] }'") else {
            return ([], [:])
        }
        var out: [(PlaceDefinition, SourceMark)] = []
        var inlineHosts: [String: HostDefinition] = [:]
        for (key, value) in m.entries {
            let p = path.key(key.text)
            guard PlaceDefinition.isValidName(key.text) else {
                error(
                    "'\(key.text)' cannot name a place", at: key.mark, path: p,
                    hint: "use letters, digits, '_' and '-' (it becomes the fact places.\(key.text))")
                continue
            }
            guard key.text != PlaceDefinition.noPlace else {
                error(
                    "'\(key.text)' cannot name a place: it is what 'places.NAME' and Home Assistant's place sensor "
                        + "say when a place is not here", at: key.mark, path: p,
                    hint: "choose another name, such as '\(key.text)-site'")
                continue
            }
            guard let pm = mapping(value, p, what: "'{ when: CONDITION, verify: [...] }'") else { continue }
            rejectUnknownKeys(pm, p, known: Self.placeKeys, what: "a place")
            var ok = true
            var condition: (any Condition)?
            if let w = pm["when"] {
                var parser = ConditionParser(context: self, registry: registry, namedHosts: namedHosts)
                parser.readingPlace = true
                condition = parser.condition(w, at: p.key("when"))
                self = parser.context
                inlineHosts.merge(parser.inlineHosts) { a, _ in a }
                if let c = condition, c.readKeys.contains(where: { $0 == .place || $0.namespace == "places" }) {
                    error(
                        "a place's condition cannot read 'place' or 'places.*'", at: w.mark, path: p.key("when"),
                        hint: "a place is defined by the network's facts; combine places in a rule's 'when:'")
                    condition = nil
                }
            } else {
                error("place '\(key.text)' has no 'when' condition", at: pm.mark, path: p)
            }
            if condition == nil { ok = false }
            var proofs: [PlaceProof] = []
            if let v = pm["verify"] {
                if let list = sequence(v, p.key("verify"), what: "a list of proofs '- https: HOST, pin: sha256//...'") {
                    for (i, item) in list.items.enumerated() {
                        if let proof = placeProof(item, p.key("verify").index(i)) {
                            proofs.append(proof)
                        } else {
                            ok = false
                        }
                    }
                } else {
                    ok = false
                }
            }
            var place = PlaceDefinition(
                name: key.text, condition: condition ?? AllCondition([]), proofs: proofs,
                origin: "\(file):\(key.mark)", fingerprint: Fingerprint.of(value))
            if let n = pm["verify_interval"] {
                if let d = duration(n, p.key("verify_interval")), d >= .seconds(1) {
                    place.verifyInterval = d
                } else {
                    if DurationSyntax.parse(n.scalar?.text ?? "") != nil {
                        error("the verify interval must be at least 1s", at: n.mark, path: p.key("verify_interval"))
                    }
                    ok = false
                }
            }
            if let n = pm["timeout"] {
                if let d = duration(n, p.key("timeout")), d >= .milliseconds(100) {
                    place.timeout = d
                } else {
                    if DurationSyntax.parse(n.scalar?.text ?? "") != nil {
                        error("the timeout must be at least 100ms", at: n.mark, path: p.key("timeout"))
                    }
                    ok = false
                }
            }
            if let d = pm["description"], text(d, p.key("description")) == nil { ok = false }
            if ok { out.append((place, key.mark)) }
        }
        return (out, inlineHosts)
    }

    /// One `verify:` entry: `{ https: HOST[:PORT] | https://HOST[:PORT][/], pin: PIN | [PINS] }`.
    private mutating func placeProof(_ node: YAMLNode, _ path: KeyPath) -> PlaceProof? {
        guard let m = mapping(node, path, what: "'{ https: HOST[:PORT], pin: sha256//... }'") else { return nil }
        rejectUnknownKeys(m, path, known: ["https", "pin"], what: "a proof")
        var ok = true
        var target: (host: String, port: Int)?
        if let h = m["https"] {
            if let t = text(h, path.key("https"), what: "HOST[:PORT] or an https:// URL") {
                target = proofTarget(t, at: h.mark, path.key("https"))
            }
            if target == nil { ok = false }
        } else {
            error(
                "a proof needs 'https'", at: m.mark, path: path,
                hint: "write '- https: HOST[:PORT]' with the pin of the key its server presents")
            ok = false
        }
        var pins: [String] = []
        if let pinNode = m["pin"] {
            let read = oneOrMany(
                pinNode, path.key("pin"), what: "a pin", parse: { PlaceProof.isValidPin($0) ? $0 : nil },
                problem: { text in
                    (
                        "'\(text)' is not a pin: expected 'sha256//' and 44 base64 characters",
                        "'netrules pin HOST[:PORT]' prints the pin of the key a server presents"
                    )
                })
            if let read { pins = read } else { ok = false }
        } else {
            error(
                "a proof needs 'pin'", at: m.mark, path: path,
                hint: "'netrules pin HOST[:PORT]' prints the pin of the key a server presents")
            ok = false
        }
        guard ok, let target else { return nil }
        return PlaceProof(host: target.host, port: target.port, pins: pins)
    }

    /// `HOST`, `HOST:PORT`, `[V6]:PORT` or `https://HOST[:PORT][/]`; port 443 unless given.
    private mutating func proofTarget(_ text: String, at mark: SourceMark, _ path: KeyPath) -> (String, Int)? {
        var rest = Substring(text)
        let parts = text.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2 {
            let name = parts[0].lowercased()
            guard name == "https" else {
                error(
                    "a proof must be made over https, not '\(name)'", at: mark, path: path,
                    hint: "a proof is a TLS handshake: write 'https://...' or just HOST[:PORT]")
                return nil
            }
            rest = parts[1]
            if let slash = rest.firstIndex(of: "/") {
                guard rest[slash...] == "/" else {
                    error(
                        "a proof's URL has no path: only the handshake is made", at: mark, path: path,
                        hint: "write 'https://\(rest[..<slash])'")
                    return nil
                }
                rest = rest[..<slash]
            }
        }
        guard let parsed = HostDefinition(inline: String(rest)) else {
            error("'\(text)' is not HOST, HOST:PORT or an https:// URL", at: mark, path: path)
            return nil
        }
        return (parsed.address, parsed.port ?? 443)
    }
}
