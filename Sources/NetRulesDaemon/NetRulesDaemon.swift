/// Namespace of the NetRulesDaemon target.
public enum NetRulesDaemon {}
