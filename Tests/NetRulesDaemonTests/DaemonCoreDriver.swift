import NetRulesActions
import NetRulesConfig
import NetRulesCore
import Testing

@testable import NetRulesDaemon
@testable import NetRulesDaemonCore

/// The state directory as the daemon leaves it: `state.json` and the journal's lines, as bytes.
///
/// Effects are applied the way the `Daemon` actor applies them, through the real encoding, so a
/// restart reads back exactly what was written.
struct SavedFiles {
    var stateFile: [UInt8]?
    var journal: [[UInt8]] = []

    mutating func apply(_ effect: DaemonEffect) {
        switch effect {
        case .appendJournal(let line):
            journal.append(line.encoded())
        case .writeSnapshot(let state):
            stateFile = state.encoded()
            journal = []
        default:
            break
        }
    }

    /// What a starting daemon reads: `state.json` with the journal's lines applied.
    var restored: PersistedState? {
        PersistedState.restore(stateFile: stateFile, journal: journal).state
    }
}

/// Drives a `DaemonCore` on virtual time, the way `EngineDriver` drives an engine: events at
/// seconds since the start, effects collected, the saved files kept up to date.
struct DaemonCoreDriver {
    private(set) var core: DaemonCore
    private(set) var now = Instant.zero
    /// The wall time at the core's instant zero.
    let startWall: WallTime
    var files: SavedFiles
    /// Every firing submitted to the runner, in order.
    private(set) var submitted: [Firing] = []
    /// The effects of the last event.
    private(set) var last: [DaemonEffect] = []
    private(set) var armed: Instant?
    private(set) var finished = false

    static let token = "t"

    static func rules(_ yaml: String) -> RuleSet {
        let result = RuleLoader(findActionPlugin: { _, _ in nil })
            .load([RuleSource(file: "rules.yaml", bytes: Array(yaml.utf8))])
        #expect(!result.hasErrors, "\(result.renderedDiagnostics())")
        return result.ruleSet
    }

    /// Starts a core on `rules`, from `files` as a previous run left them, at wall time `wall`.
    init(
        rules yaml: String, files: SavedFiles = SavedFiles(), wall: Double = 1_800_000_000, history: Bool = true,
        token: String = DaemonCoreDriver.token, bootID: String? = "boot-1"
    ) {
        core = DaemonCore(processToken: token, logger: .disabled, recordsHistory: history)
        startWall = WallTime(secondsSince1970: wall)
        self.files = files
        let start = DaemonStart(
            ruleSet: Self.rules(yaml), restored: files.restored, journalOpen: true, localClock: .utc, bootID: bootID)
        send(.start(start), at: 0)
    }

    @discardableResult
    mutating func send(_ event: DaemonEvent, at seconds: Double) -> [DaemonEffect] {
        let at = Instant(.milliseconds(Int64(seconds * 1000 + 0.5)))
        precondition(at >= now, "the virtual clock only moves forward")
        now = at
        last = core.handle(event, at: at, wall: startWall + at.offset)
        for effect in last {
            files.apply(effect)
            switch effect {
            case .submit(let firing, _, _): submitted.append(firing)
            case .armDeadline(let deadline): armed = deadline
            case .finished: finished = true
            default: break
            }
        }
        return last
    }

    /// Sets facts at `seconds`, after firing the deadline armed before then, as the timer would.
    @discardableResult
    mutating func set(_ values: [FactKey: FactValue?], at seconds: Double) -> [DaemonEffect] {
        advance(to: seconds)
        return send(.facts(FactUpdate(values: values)), at: seconds)
    }

    /// Lets time pass to `seconds`, delivering each armed deadline on the way.
    mutating func advance(to seconds: Double) {
        while let deadline = armed, deadline.seconds <= seconds, core.phase == .running {
            armed = nil
            send(.deadline, at: max(deadline.seconds, now.seconds))
        }
    }

    /// The action's result, as the runner reports it.
    mutating func report(_ firing: Firing, action index: Int, at seconds: Double) {
        var result = ActionResult(rule: firing.rule, edge: firing.edge, index: index, kind: "run")
        result.firingID = firing.id
        send(.actionResult(result), at: seconds)
    }

    /// Submissions as `rule:edge@seconds`.
    var firings: [String] {
        submitted.map { "\($0.rule):\($0.edge)@\(FactValue.format($0.at.seconds))" }
    }
}
