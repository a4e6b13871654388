import Foundation
import NetRulesTesting

@testable import NetRulesHTTP

extension TestNamespace {
    /// An executor whose every job runs on a new thread inside the namespace.
    var executor: BlockingExecutor {
        let path = "/var/run/netns/\(name)"
        return BlockingExecutor { job in
            let thread = Thread {
                do { try TestNamespace.join(path) } catch { fatalError("setns: \(error)") }
                job()
            }
            thread.start()
        }
    }
}
