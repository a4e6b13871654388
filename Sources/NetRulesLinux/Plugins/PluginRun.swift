@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem

/// One run of an observer plugin: spawn, read lines until it exits or we are cancelled.
enum PluginRun {
    struct Outcome: Sendable {
        /// The exit status, nil when it was stopped by cancellation or never started.
        var exitStatus: Int32?
        /// Keys the run reported, which become unknown when it ends.
        var reportedKeys: Set<FactKey>
        /// Why it could not start.
        var failure: String?
    }

    /// Runs the plugin once on a dedicated thread.
    static func run(
        definition: ObserverDefinition, updates: AsyncStream<FactUpdate>.Continuation,
        logger: @escaping @Sendable (String) -> Void
    ) async throws -> Outcome {
        let wake = try WakeEvent()
        return try await withTaskCancellationHandler {
            try await BlockingThread.run(name: "netrules-plugin") {
                try readLines(definition: definition, wake: wake, updates: updates, logger: logger)
            }
        } onCancel: {
            wake.signal()
        }
    }

    private static func readLines(
        definition: ObserverDefinition, wake: WakeEvent, updates: AsyncStream<FactUpdate>.Continuation,
        logger: (String) -> Void
    ) throws -> Outcome {
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(definition.command, captureOutput: true)
        } catch {
            return Outcome(exitStatus: nil, reportedKeys: [], failure: "\(error)")
        }
        guard let output = child.output else { preconditionFailure("spawned with captureOutput") }
        defer { try? output.close() }
        var keys: Set<FactKey> = []
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        func handle(_ line: ArraySlice<UInt8>) {
            let text = String(decoding: line, as: UTF8.self)
            guard !text.allSatisfy({ $0 == " " || $0 == "\r" }) else { return }
            switch PluginLine.parse(text) {
            case .success(let update):
                keys.formUnion(update.changes.keys)
                if !update.isEmpty { updates.yield(update) }
            case .failure(let malformed):
                logger(
                    "observer plugin '\(definition.name)': skipped a malformed line (\(malformed)): \(FactValue.escaped(Array(line.prefix(200))))"
                )
            }
        }
        while true {
            let (readable, cancelled) = try output.withFileDescriptor { fd in
                var fds = [
                    pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0),
                ]
                _ = try sys_poll(&fds, fds.count, -1).get(call: "poll")
                return (fds[0].revents != 0, fds[1].revents != 0)
            }
            if cancelled {
                stop(child)
                return Outcome(exitStatus: nil, reportedKeys: keys)
            }
            guard readable else { continue }
            let count = try output.withFileDescriptor { fd in
                try buffer.withUnsafeMutableBytes { try sys_read(fd, $0).get(call: "read") }
            }
            if count == 0 { break }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                handle(pending[..<newline])
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { handle(pending[...]) }
        return Outcome(exitStatus: try child.wait(), reportedKeys: keys)
    }

    /// SIGTERM to the plugin's process group, SIGKILL if it lingers for a second, then reap it.
    private static func stop(_ child: ChildProcess) {
        child.signalGroup(SIGTERM)
        for _ in 0..<100 {
            if (try? child.poll()) != nil { return }
            usleep(10_000)
        }
        child.signalGroup(SIGKILL)
        _ = try? child.wait()
    }
}
