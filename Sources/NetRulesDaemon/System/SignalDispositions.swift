internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesSystem
import Synchronization

/// The process-wide signal dispositions that `SignalEvents` changes, and how to undo that.
///
/// Signal dispositions belong to the process, so this table is global and guarded by a mutex.
/// While at least one `SignalEvents` wants a signal, its disposition is the C handler
/// `CNetRulesLinux_signal_handler` (it records the signal and wakes `SignalRelay`'s thread); when
/// the last registration of the signal ends, its original disposition comes back.
///
/// A handler rather than a `signalfd`: a signalfd sees only signals that are blocked in every
/// thread, and threads that exist before the daemon registers (a test runner's, say) would still
/// take the signal's default action. A handler works whichever thread the kernel picks.
enum SignalDispositions {
    private struct Table {
        var liveRegistrations: [CInt: Int] = [:]
        var original: [CInt: SavedAction] = [:]
    }

    private static let table = Mutex(Table())

    /// Catches `signals` with the relay's handler (once per signal, however many registrations).
    static func catchSignals(_ signals: [CInt]) {
        table.withLock { table in
            for signal in signals {
                defer { table.liveRegistrations[signal, default: 0] += 1 }
                guard table.liveRegistrations[signal, default: 0] == 0 else { continue }
                table.original[signal] = SavedAction.current(signal)
                SavedAction.relay.install(signal)
            }
        }
    }

    /// Called when a registration of `signals` ended: the last one restores the original disposition.
    static func release(_ signals: [CInt]) {
        table.withLock { table in
            for signal in signals {
                table.liveRegistrations[signal, default: 1] -= 1
                guard table.liveRegistrations[signal] == 0 else { continue }
                table.original.removeValue(forKey: signal)?.install(signal)
            }
        }
    }

    /// The current handler address of `signal`: 0 for `SIG_DFL`, 1 for `SIG_IGN`, else a function.
    static func handlerAddress(_ signal: CInt) -> UInt {
        SavedAction.current(signal).handlerAddress
    }
}

/// A copy of a `struct sigaction`.
///
/// `@unchecked Sendable`: it is a plain C value (a function pointer to code that lives as long as
/// the process, a signal mask and flags); copies share nothing, so moving one between threads is safe.
private struct SavedAction: @unchecked Sendable {
    var action: sigaction

    /// The relay's handler, with `SA_RESTART` so that a signal never makes another thread's
    /// blocking call fail with EINTR.
    static let relay: SavedAction = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = CNetRulesLinux_signal_handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = CInt(SA_RESTART)
        return SavedAction(action: action)
    }()

    static func current(_ signal: CInt) -> SavedAction {
        var action = sigaction()
        // sigaction(2) fails only for an invalid signal number, which these never are.
        _ = sys_sigaction(signal, nil, &action)
        return SavedAction(action: action)
    }

    func install(_ signal: CInt) {
        var action = self.action
        _ = sys_sigaction(signal, &action, nil)
    }

    /// `sa_handler` and `sa_sigaction` share storage, so this is the address for either kind.
    var handlerAddress: UInt { unsafeBitCast(action.__sigaction_handler.sa_handler, to: UInt.self) }
}
