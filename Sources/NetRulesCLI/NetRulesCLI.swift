/// Namespace of the NetRulesCLI target.
public enum NetRulesCLI {}
