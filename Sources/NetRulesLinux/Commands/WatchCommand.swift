@preconcurrency import Glibc
import NetRulesCore

/// `netrules watch [--json]`: every fact change as it happens, until the task is cancelled.
public enum WatchCommand {
    /// Runs the built-in Linux observers (netlink, dns, wifi) and prints each change.
    ///
    /// Text lines read `HH:MM:SS.mmm  KEY  OLD -> NEW`. With `json`, each change is one JSON line,
    /// `{"version":1,"key":"gateway","old":"10.0.0.1","new":null,"at":"2026-01-02T03:04:05.678Z"}`;
    /// `null` means known absent, and `old`/`new` are left out when the fact is unknown. The first
    /// lines are the initial values (changes from unknown).
    /// - Parameters:
    ///   - json: print JSON Lines instead of text.
    ///   - output: receives each line, newline included.
    ///   - errorOutput: receives observer failures and notices; standard error by default.
    /// - Returns: 0 after cancellation (the shutdown path).
    public static func run(
        json: Bool,
        output: @Sendable (String) -> Void,
        errorOutput: @escaping @Sendable (String) -> Void = { fputs($0, stderr) }
    ) async -> Int32 {
        let logger = Logger(label: "netrules.watch", level: .trace, sink: LineLogSink(errorOutput))
        let observers: [any Observer] = [
            LinuxNetworkObserver(logger: logger),
            ResolverObserver(),
            // Watch shows every fact, signal included: sample it at the rule files' default interval.
            WiFiObserver(
                signalSampling: SignalSampling(interval: WiFiSettings().signalInterval),
                logger: logger),
        ]
        // State-like facts: if the printer falls behind, older updates may go but the newest stays.
        let (stream, continuation) = AsyncStream.makeStream(
            of: FactUpdate.self, bufferingPolicy: .bufferingNewest(1024))
        await withTaskGroup(of: Void.self) { group in
            for observer in observers {
                group.addTask {
                    do {
                        try await observer.run(reporting: continuation)
                    } catch {
                        errorOutput("watch: the \(observer.name) observer failed: \(error)\n")
                    }
                }
            }
            var store = FactStore()
            for await update in stream {
                let old = store
                let at = Wallclock.now()
                for key in store.apply(update).sorted() {
                    output(
                        json
                            ? line(json: key, old: old[key], new: store[key], at: at)
                            : line(text: key, old: old[key], new: store[key], at: at))
                }
                if Task.isCancelled { break }
            }
            group.cancelAll()
        }
        return 0
    }

    /// One JSON line for a change.
    static func line(json key: FactKey, old: FactState, new: FactState, at: Wallclock) -> String {
        // In the order the contract names them: version, key, old, new, at (old/new left out when unknown).
        var members: [(String, JSONValue)] = [("version", .number(1)), ("key", .string(key.rawValue))]
        if let old = FactJSON.encode(old) { members.append(("old", old)) }
        if let new = FactJSON.encode(new) { members.append(("new", new)) }
        members.append(("at", .string(at.iso8601)))
        return JSONValue.object(members).compact + "\n"
    }

    /// One text line for a change.
    static func line(text key: FactKey, old: FactState, new: FactState, at: Wallclock) -> String {
        func show(_ state: FactState) -> String {
            if case .value(.list(let items)) = state {
                return "[" + items.map(\.plainText).joined(separator: ", ") + "]"
            }
            return state.description
        }
        return "\(at.timeOfDay)  \(key)  \(show(old)) -> \(show(new))\n"
    }
}
