/// Namespace of the NetRulesCore target.
public enum NetRulesCore {}
