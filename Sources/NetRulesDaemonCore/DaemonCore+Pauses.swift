import NetRulesCore

extension DaemonCore {
    /// Whether the rule set takes commands (`mqtt: commands: true`).
    package var takesCommands: Bool { ruleSet.mqtt?.commands == true }

    /// Pauses or resumes `rule` for a command from `by`; a rule the core does not run, a rule set
    /// without `commands: true`, or a command that changes nothing is logged and ignored.
    package mutating func command(_ rule: String, paused pause: Bool, by: String, into effects: inout [DaemonEffect]) {
        guard takesCommands else {
            logger.info("a command from \(by) for rule '\(rule)' is ignored: mqtt: has no 'commands: true'")
            return
        }
        guard engine.index(ofRule: rule) != nil else {
            logger.info("a command from \(by) for rule '\(rule)' is ignored: no rule has that name")
            return
        }
        switch (pause, paused[rule]) {
        case (true, nil):
            paused[rule] = RulePause(by: by, since: wallNow)
            logger.notice("rule '\(rule)' paused from \(by): its firings are not run until it is resumed")
        case (false, let pause?):
            paused[rule] = nil
            logger.notice("rule '\(rule)' resumed from \(by) (paused since \(pause.since.rfc3339))")
        case (true, _?):
            logger.info("rule '\(rule)' is paused already: the command from \(by) changes nothing")
            return
        case (false, nil):
            logger.info("rule '\(rule)' runs already: the command from \(by) changes nothing")
            return
        }
        pausedVersion &+= 1
        effects.append(.pausesChanged(Set(paused.keys)))
    }

    /// Resumes the paused rules the rule set no longer runs, and every one once it no longer
    /// takes commands (nothing could resume them); `announce`: tell the fleet (not at the start,
    /// where the fleet reads the paused rules when it subscribes).
    package mutating func keepPausesOfRunningRules(into effects: inout [DaemonEffect], announce: Bool = true) {
        guard !paused.isEmpty else { return }
        let kept = takesCommands ? paused.filter { engine.index(ofRule: $0.key) != nil } : [:]
        guard kept.count != paused.count else { return }
        for name in paused.keys.sorted() where kept[name] == nil {
            let why = takesCommands ? "no rule has that name any more" : "mqtt: no longer has 'commands: true'"
            logger.notice("rule '\(name)' is no longer paused: \(why)")
        }
        paused = kept
        pausedVersion &+= 1
        if announce { effects.append(.pausesChanged(Set(paused.keys))) }
    }

    /// The firings of rules that are not paused; each of the others is logged and recorded in the
    /// history as dropped, `paused`, and never reaches the runner.
    package mutating func skipPaused(_ firings: [Firing], into effects: inout [DaemonEffect]) -> [Firing] {
        var running: [Firing] = []
        for firing in firings {
            guard let pause = paused[firing.rule] else {
                running.append(firing)
                continue
            }
            logger.notice(
                "rule '\(firing.rule)' \(firing.edge): not run, the rule is paused (from \(pause.by) at "
                    + "\(pause.since.rfc3339))",
                metadata: [("rule.id", firing.rule), ("edge", firing.edge.rawValue)])
            guard recordsHistory else { continue }
            let entry = HistoryEntry.paused(
                firing, id: "\(processToken)-drop-\(nextDropNumber)", time: wallTime(of: firing.at).rfc3339,
                readKeys: readKeys(firing.rule))
            nextDropNumber += 1
            effects.append(.history(.dropped(entry)))
        }
        return running
    }

    /// The paused rules in the rules' order, their times in the engine's local clock.
    package var pausedRules: [PausedRule] {
        engine.rules.compactMap { rule in
            guard let pause = paused[rule.name] else { return nil }
            let unix = Int64(pause.since.secondsSince1970.rounded(.down))
            return PausedRule(
                rule: rule.name, by: pause.by,
                since: LocalTime.rfc3339(unixTime: unix, utcOffset: engine.clock.utcOffset(unix)))
        }
    }
}
