import NetRulesCore
import NetRulesDaemonCore
import NetRulesLinux
import NetRulesSystem
import Synchronization

extension Daemon {
    /// Where each fact comes from as this daemon runs: the rules it runs, whether this kernel has
    /// nl80211 (the answer `ObserverPlan` was given when the rules were last read), and whether
    /// NetworkManager is on the bus as its observer sees it.
    ///
    /// The NetworkManager observer reports `nm.connectivity` whenever NetworkManager answers on the
    /// bus and leaves it unknown otherwise (and when there is no bus), so a known `nm.connectivity`
    /// is NetworkManager on the bus.
    package nonisolated func factSources() async -> FactSources? {
        await factSources(kernelHasNL80211: kernelHasNL80211.load(ordering: .relaxed))
    }

    private func factSources(kernelHasNL80211: Bool) -> FactSources {
        FactSources(
            ruleSet: core.ruleSet, kernelHasNL80211: kernelHasNL80211,
            networkManagerOnBus: core.engine.facts[.networkManagerConnectivity].isKnown)
    }
}
