@preconcurrency import Glibc
import Synchronization

/// The process-wide signal dispositions that `SignalEvents` changes, and how to undo that.
///
/// Signal dispositions belong to the process, so this table is global and guarded by a mutex.
///
/// Why more than `signal(SIG, SIG_IGN)`: on Linux, libdispatch delivers a signal source through a
/// `signalfd`, and the first time a signal gets a source it installs its own handler for it (one
/// that blocks the signal in the thread that caught it and re-raises it at its manager thread, so
/// the signalfd can read it). An *ignored* signal is discarded by the kernel before any signalfd
/// sees it. So:
/// - before registering, a signal whose disposition is the default (terminate) is set to
///   `SIG_IGN`, so one that arrives before the source is ready does not kill the daemon;
/// - after registering, the handler libdispatch installed is remembered; libdispatch installs it
///   only once per process, so a later registration (after a `SignalEvents` ended and the
///   default was restored) puts the remembered handler back itself;
/// - when the last registration of a signal ends, its original disposition is restored.
enum SignalDispositions {
    private struct Table {
        var liveRegistrations: [CInt: Int] = [:]
        var original: [CInt: SavedAction] = [:]
        var deliveryHandler: [CInt: SavedAction] = [:]
    }

    private static let table = Mutex(Table())

    /// Called before the sources of `signals` are created.
    static func prepare(_ signals: [CInt]) {
        table.withLock { table in
            for signal in signals {
                defer { table.liveRegistrations[signal, default: 0] += 1 }
                guard table.liveRegistrations[signal, default: 0] == 0 else { continue }
                let current = SavedAction.current(signal)
                table.original[signal] = current
                if current.isDefault { SavedAction.ignore.install(signal) }
            }
        }
    }

    /// Called once the sources of `signals` are registered.
    static func registered(_ signals: [CInt]) {
        table.withLock { table in
            for signal in signals {
                let current = SavedAction.current(signal)
                if current.isHandler {
                    table.deliveryHandler[signal] = current
                } else if let handler = table.deliveryHandler[signal] {
                    handler.install(signal)
                }
            }
        }
    }

    /// Called after the sources of `signals` were cancelled.
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

    static let ignore: SavedAction = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
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
    var isDefault: Bool { handlerAddress == 0 }
    var isHandler: Bool { handlerAddress > 1 }
}
