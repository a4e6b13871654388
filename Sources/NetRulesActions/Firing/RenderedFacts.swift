import NetRulesCore
import Synchronization

/// One fact store rendered for actions: its `NETRULES_<KEY>` variables and the `facts` and
/// `facts_hex` members of the input document, each made at most once and shared by every action
/// of the firings that carry that store.
///
/// One change can fire a hundred rules, and with a thousand rules a store holds a thousand facts
/// (every interface a rule names is known, if only as absent): made per action, the variables and
/// the document were most of the daemon's work between the change and the last action's start.
/// The runner hands the firings of one store the same instance (`isFor(_:)`).
final class RenderedFacts: Sendable {
    typealias Variable = (name: [UInt8], entry: [UInt8])

    let facts: FactStore
    private let made = Mutex<(variables: [Variable]?, document: [UInt8]?)>((nil, nil))

    init(_ facts: FactStore) {
        self.facts = facts
    }

    /// Whether these are `store`'s: the same version first (a different one is the common case and
    /// costs nothing), then the same facts (the same storage, when shared, costs nothing either).
    func isFor(_ store: FactStore) -> Bool {
        facts.version == store.version && facts == store
    }

    /// `(NAME, "NAME=value")` per known fact, sorted by name (byte order), each name once: of two
    /// keys with the same variable name the greater wins. Known-absent facts have an empty value.
    var variables: [Variable] {
        made.withLock { made in
            if let variables = made.variables { return variables }
            // In key order, so the later of two keys with one name is the one kept below.
            var byName: [[UInt8]: [UInt8]] = [:]
            byName.reserveCapacity(facts.keys.count)
            for (key, state) in facts.known {
                byName[key.environmentVariableBytes] = state.value?.plainBytes ?? []
            }
            // Sorted as bytes: String's comparison is Unicode-aware and costs several times more.
            let variables = byName.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { name, value in
                (name: name, entry: name + [UInt8(ascii: "=")] + value)
            }
            made.variables = variables
            return variables
        }
    }

    /// `"facts":{…}` and, when a text fact is not UTF-8, `,"facts_hex":{…}`, as compact JSON
    /// (see `FiringDocument`).
    var documentMembers: [UInt8] {
        made.withLock { made in
            if let document = made.document { return document }
            let known = facts.known
            var members: [(String, JSONValue)] = [
                ("facts", .object(known.map { ($0.key.rawValue, JSONValue($0.state)) }))
            ]
            let raw = known.compactMap { fact -> (String, JSONValue)? in
                guard case .value(.bytes(let bytes)) = fact.state else { return nil }
                return (fact.key.rawValue, .string(bytes.map(FactValue.hexByte).joined()))
            }
            if !raw.isEmpty { members.append(("facts_hex", .object(raw))) }
            // The members without the object's braces.
            let document = Array(JSONValue.object(members).compact.utf8.dropFirst().dropLast())
            made.document = document
            return document
        }
    }
}
