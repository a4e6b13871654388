/// Namespace of the NetRulesActions target.
public enum NetRulesActions {}
