/// Namespace of the NetRulesHTTP target.
public enum NetRulesHTTP {}
