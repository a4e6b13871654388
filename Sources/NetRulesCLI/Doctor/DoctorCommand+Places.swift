import NetRulesCore
import NetRulesProbes

extension DoctorCommand {
    /// One check per place of the rules: its condition, and whether each proof could run here
    /// (its host resolves, a route leads to it over the default route's interface). It resolves
    /// only the names the rules hold and sends nothing: no handshake is made.
    ///
    /// A proof that cannot run is a warning, not an error: away from the place that is expected.
    static func placeChecks(_ places: [PlaceDefinition]) -> [DoctorCheck] {
        places.map { place in
            let name = "place \(place.name)"
            guard !place.proofs.isEmpty else {
                return .ok(
                    name, "when \(place.condition.inlineDescription); no proof: here whenever its condition holds")
            }
            var parts: [String] = []
            var fixes: [String] = []
            for proof in place.proofs {
                let readiness = ProofReadiness.check(proof)
                if let problem = readiness.resolveProblem {
                    parts.append("proof \(proof) cannot run here: \(proof.host) does not resolve (\(problem))")
                    fixes.append("on the place's network its DNS must resolve \(proof.host); or write the address")
                } else if let routed = readiness.routedAddress, let interface = readiness.interface {
                    let resolved =
                        readiness.addresses == [proof.host]
                        ? "" : "\(proof.host) resolves to \(readiness.addresses.joined(separator: ", ")), and "
                    parts.append("proof \(proof) can run here: \(resolved)a route leads to \(routed) over \(interface)")
                } else {
                    parts.append("proof \(proof) cannot run here: \(readiness.routeProblem ?? "no route")")
                    fixes.append("on the place's network a route must lead to \(proof.host)")
                }
            }
            let detail = "when \(place.condition.inlineDescription); " + parts.joined(separator: "; ")
            guard fixes.isEmpty else {
                let fix =
                    fixes.joined(separator: "; ")
                    + " (away from the place this is expected: the place is then claimed, never here)"
                return .warning(name, detail, fix: fix)
            }
            return .ok(name, detail)
        }
    }
}
