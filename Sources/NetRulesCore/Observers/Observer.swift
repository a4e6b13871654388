/// A source of facts about the network: netlink, Wi-Fi, probes, an external plugin, a replay.
///
/// An observer is a long-running service. `run` reports partial updates through the
/// reporter until the task is cancelled, which is the shutdown path; returning on its own
/// is reported by the daemon, not ignored.
public protocol Observer: Sendable {
    /// The name logs and plugin facts use.
    var name: String { get }

    /// Namespaces (`interfaces`) every update of this observer describes completely: a key of
    /// theirs it does not name does not exist (known absent), rather than not reported yet.
    var completeNamespaces: Set<String> { get }

    /// The facts this observer is the source of, known before it reports any: when it cannot
    /// start, the daemon says which facts (and so which rules) wait for it.
    var ownedKeys: Set<FactKey> { get }

    /// Runs until cancelled, reporting updates.
    /// - Throws: when the observer cannot work at all (after saying why).
    func run(reporting updates: FactReporter) async throws
}

extension Observer {
    /// Most observers report some facts of a namespace, never all of it.
    public var completeNamespaces: Set<String> { [] }

    /// Most observers' facts are known only once they report them.
    public var ownedKeys: Set<FactKey> { [] }
}
