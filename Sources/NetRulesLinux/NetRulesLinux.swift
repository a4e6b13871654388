/// Namespace of the NetRulesLinux target.
public enum NetRulesLinux {}
