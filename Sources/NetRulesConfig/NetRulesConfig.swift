/// Namespace of the NetRulesConfig target.
public enum NetRulesConfig {}
