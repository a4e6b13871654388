/// Namespace of the NetRulesProbes target.
public enum NetRulesProbes {}
