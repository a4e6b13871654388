/// Namespace of the NetRulesTesting target.
public enum NetRulesTesting {}
