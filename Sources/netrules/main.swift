import NetRulesCLI

print("netrules: not yet wired")
