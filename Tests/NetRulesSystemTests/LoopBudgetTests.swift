import NetRulesSystem
import Testing

/// STYLE §16's debug check: a job that waits past the budget is reported (on stderr, naming what
/// it was); one that returns at once is not.
@Suite(.timeLimit(.minutes(1)))
struct LoopBudgetTests {
    @Test func aJobThatWaitsPastTheBudgetIsReportedAndAQuickOneIsNot() {
        let budget = LoopBudget(milliseconds: 5)
        let waiting = budget.start()
        sys_sleep(milliseconds: 30)
        #expect(budget.end(waiting, "LoopBudgetTests' sleep (an expected report)"))
        let quick = budget.start()
        var named = false
        func name() -> String {
            named = true
            return "nothing"
        }
        // Outside `#expect`: the macro evaluates a call's arguments itself, to show them.
        let reported = budget.end(quick, name())
        #expect(!reported)
        #expect(!named, "the name is made only for a report")
    }
}
