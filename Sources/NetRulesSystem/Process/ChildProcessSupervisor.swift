@preconcurrency import Glibc

/// The loop that feeds, drains, times out and reaps one spawned child.
///
/// It waits through `Readiness`: watches of the event loop for the child's pipes and pidfd (no
/// thread per child). It belongs to
/// the one task that supervises the child: only that task closes the child's descriptors, which is
/// why it may hold their raw numbers across a wait. Cancelling that task stops the child (SIGTERM
/// to its group, SIGKILL after the grace period) and the supervision goes on until it is reaped.
struct ChildProcessSupervisor {
    private let child: SpawnedChild
    private let process: ChildProcess
    private let start: ContinuousClock.Instant
    private let loop: ThreadExecutor

    private var inputOffset = 0
    /// What goes to the child's stdin: `standardInput`, or what `makeStandardInput` made.
    private let input: [UInt8]
    private var output = CapturedOutput()
    private var errors = CapturedOutput()
    private var timedOut = false
    private var stopped = false
    private var deadline: ContinuousClock.Instant?
    private var status: CInt?
    /// Receives stdout as it arrives instead of `output`, when set.
    private let streamingOutput: ((UnsafeRawBufferPointer) -> Void)?

    init(
        child: SpawnedChild, process: ChildProcess, input: [UInt8], start: ContinuousClock.Instant,
        loop: ThreadExecutor, streamingOutput: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) {
        self.loop = loop
        self.child = child
        self.process = process
        self.input = input
        self.start = start
        self.streamingOutput = streamingOutput
        deadline = process.timeout.map { start + $0 }
        if input.isEmpty { child.standardInput.closeDiscardingError() }
    }

    mutating func superviseUntilReaped() async -> ChildProcessOutcome {
        while status == nil {
            await waitOnce()
        }
        child.standardInput.closeDiscardingError()
        // Whatever the child wrote before exiting is already in the pipes; a background
        // grandchild still holding them open must not keep the action waiting.
        drain(child.standardOutput, into: &output, streaming: streamingOutput)
        if let standardError = child.standardError { drain(standardError, into: &errors) }
        child.standardOutput.closeDiscardingError()
        child.standardError?.closeDiscardingError()
        child.pidfd?.closeDiscardingError()
        let termination = ChildProcessOutcome.Termination(waitStatus: status!)
        return ChildProcessOutcome(
            pid: child.pid, termination: termination, timedOut: timedOut, standardOutput: output,
            standardError: errors, duration: ContinuousClock.now - start, stopped: stopped,
            coreDumped: !Self.exited(status!) && status! & 0x80 != 0
        )
    }

    private mutating func waitOnce() async {
        var entries: [pollfd] = []
        var roles: [Role] = []
        func watch(_ descriptor: FileDescriptor?, _ events: CInt, _ role: Role) {
            // A descriptor closed already (its stream ended) is not watched any more.
            guard let descriptor, let fd = try? descriptor.withFileDescriptor({ $0 }) else { return }
            entries.append(pollfd(fd: fd, events: Int16(events), revents: 0))
            roles.append(role)
        }
        watch(child.standardInput, CInt(POLLOUT), .input)
        watch(child.standardOutput, CInt(POLLIN), .output)
        watch(child.standardError, CInt(POLLIN), .errors)
        watch(child.pidfd, CInt(POLLIN), .exit)

        var until = deadline
        if child.pidfd == nil {
            // No pidfd (an old kernel): look for the child's end every 10 ms.
            let soon = ContinuousClock.now + .milliseconds(10)
            until = min(until ?? soon, soon)
        }
        let outcome: WaitOutcome
        do {
            outcome = try await Readiness.wait(on: loop, for: &entries, deadline: until, cancellable: !stopped)
        } catch is CancellationError {
            // Shutting down: end the process now, as its timeout would, and wait on for its end.
            stopped = true
            if !timedOut && status == nil { escalate() }
            return
        } catch {
            // Readiness throws nothing else; should it, the wait is taken as a timeout: the loop
            // waits again, and the child's deadline still holds.
            outcome = .timedOut
        }
        if outcome == .ready {
            for (entry, role) in zip(entries, roles) where entry.revents != 0 {
                switch role {
                case .input: feedInput()
                case .output: _ = read(child.standardOutput, into: &output, streaming: streamingOutput)
                case .errors: if let standardError = child.standardError { _ = read(standardError, into: &errors) }
                case .exit: reapIfExited()
                }
            }
        }
        if child.pidfd == nil { reapIfExited() }
        if let deadline, ContinuousClock.now >= deadline, status == nil { escalate() }
    }

    private enum Role { case input, output, errors, exit }

    /// SIGTERM to the group at the timeout, SIGKILL after the grace period.
    private mutating func escalate() {
        if !timedOut {
            timedOut = true
            _ = sys_kill(-child.pid, SIGTERM)
            deadline = ContinuousClock.now + process.terminationGrace
        } else {
            _ = sys_kill(-child.pid, SIGKILL)
            deadline = nil
        }
    }

    private mutating func reapIfExited() {
        if timedOut {
            // The leader is a zombie at worst, so its pid, and with it the group id, is still ours.
            _ = sys_kill(-child.pid, SIGKILL)
        }
        var raw: CInt = 0
        if case .success(let pid) = sys_waitpid(child.pid, &raw, WNOHANG), pid == child.pid {
            status = raw
        }
    }

    private mutating func feedInput() {
        ChildProcess.blockBrokenPipeSignal()
        while inputOffset < input.count {
            let result =
                // EBADF: stdin was already closed, so there is nothing left to feed; the failure
                // branch below stops feeding.
                (try? child.standardInput.withFileDescriptor { fd in
                    input.withUnsafeBytes { sys_write(fd, UnsafeRawBufferPointer(rebasing: $0[inputOffset...])) }
                }) ?? .failure(Errno(rawValue: EBADF))
            switch result {
            case .success(let count): inputOffset += count
            case .failure(.wouldBlock): return
            case .failure:
                // EPIPE: the child does not want (the rest of) its input; that is its business.
                inputOffset = input.count
            }
        }
        child.standardInput.closeDiscardingError()
    }

    /// Reads what is available now; returns false once the stream is closed.
    private func read(
        _ descriptor: FileDescriptor, into capture: inout CapturedOutput,
        streaming: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let result =
                // EBADF: the stream was closed, which reading treats as its end.
                (try? descriptor.withFileDescriptor { fd in
                    buffer.withUnsafeMutableBytes { sys_read(fd, $0) }
                }) ?? .success(0)
            switch result {
            case .success(0):
                descriptor.closeDiscardingError()
                return false
            case .success(let count):
                buffer.withUnsafeBytes {
                    let chunk = UnsafeRawBufferPointer(rebasing: $0[..<count])
                    if let streaming { streaming(chunk) } else { capture.append(chunk, limit: process.outputLimit) }
                }
            case .failure(.wouldBlock):
                return true
            case .failure:
                descriptor.closeDiscardingError()
                return false
            }
        }
    }

    private func drain(
        _ descriptor: FileDescriptor, into capture: inout CapturedOutput,
        streaming: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) {
        guard !descriptor.isClosed else { return }
        _ = read(descriptor, into: &capture, streaming: streaming)
    }

    // The W* macros of <sys/wait.h> are not imported into Swift.
    private static func exited(_ status: CInt) -> Bool { status & 0x7F == 0 }
}
