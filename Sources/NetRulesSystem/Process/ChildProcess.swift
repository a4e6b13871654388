@preconcurrency import Glibc

/// A program to start in its own process group, feed on stdin, watch, and reap: the one way the
/// package starts a program (`run:` actions, action plugins, observer plugins, benchmarks).
///
/// `run()` starts the child with `posix_spawn(3)` (glibc's starts it with `CLONE_VM | CLONE_VFORK`),
/// or with `sys_spawn` (the same clone, then the account's credentials and/or a death signal) when
/// `user` or `diesWithDaemon` is set, in a new group it leads, with descriptors above 2 closed and default signal dispositions. It writes `standardInput` to a pipe, captures stdout
/// and stderr up to `outputLimit` bytes each, and reaps the child with `waitpid(2)` once its pidfd
/// says it exited. The spawn runs on `BlockingPool`; the waiting goes through `Readiness` on the
/// event loop it is given, so a running child costs no thread, and nothing blocks the loop. A
/// long-lived child (an observer plugin) can instead hand its stdout to a streaming reader as it
/// arrives (`run(on:standardOutput:)`).
///
/// On timeout the whole group gets SIGTERM, then SIGKILL after `terminationGrace`; once the leader
/// has exited after a timeout, the group gets a final SIGKILL so a grandchild that ignored SIGTERM
/// dies too. That SIGKILL is sent before the leader is reaped, so the group id cannot have been
/// reused. Without a timeout, members the command left running in the background are left alone:
/// the action is over when its command exits (`run: "vpnc &"` is legitimate).
package struct ChildProcess: Sendable {
    package var executablePath: String
    /// `argv`, including `argv[0]`.
    package var arguments: [[UInt8]]
    /// `NAME=value` entries.
    package var environment: [[UInt8]]
    package var workingDirectory: String?
    package var standardInput: [UInt8] = []
    /// Makes the bytes for stdin instead of `standardInput`, on the blocking pool once the program
    /// started: a document that is not needed to start it is not made before.
    package var makeStandardInput: (@Sendable () -> [UInt8])?
    /// How long the child may run before its group is stopped; nil for as long as it likes.
    package var timeout: Duration?
    package var terminationGrace: Duration = .seconds(2)
    /// Bytes kept per output stream; the rest is counted and dropped.
    package var outputLimit = 16 * 1024
    /// Whether the child writes to our own standard error (the journal under systemd) instead of a
    /// captured pipe.
    package var standardErrorPassesThrough = false
    /// The account to run as (`user:`), or nil for ours. Set, the child is started by
    /// `sys_spawn` (fork, credentials, exec) instead of posix_spawn(3), which cannot
    /// change them; `workingDirectory` is then entered as that user (design note 0010).
    package var user: UserAccount?
    /// Whether the child is killed (SIGKILL) when the daemon dies, even by SIGKILL: an observer
    /// plugin, which must never outlive it nor run twice after a restart, and a `run:` or plugin
    /// action, which must not go on as root with nothing left to time it out (docs/plugins.md).
    ///
    /// Set, the child is started by `sys_spawn` with `PR_SET_PDEATHSIG`, which posix_spawn(3)
    /// cannot set. The kernel sends that signal when the *thread* that started the child ends, not
    /// the process, and `BlockingPool.shared`'s threads beyond its first end after a while; so such
    /// a child is started on ``spawner``, whose threads live as long as the process. Only the child
    /// itself gets the signal: what it started in turn (`sh -c "sleep 30; …"`'s sleep, a `vpnc &`
    /// it left in the background) is not covered.
    package var diesWithDaemon = false

    /// Told, on the spawning thread, the pid of the child once it has started, and, on
    /// `BlockingPool`, once it has been reaped: the daemon's record of its plugins' process groups.
    package var lifetime: (any ChildLifetimeRecord)?

    /// The threads that start children that die with the daemon (`diesWithDaemon`): two (an
    /// action's job here also looks the account up and searches PATH, so one slow lookup does not
    /// hold up every spawn), which never end. Its own pool, not `BlockingPool.shared` with
    /// permanent threads, so that spawns are not queued behind the shared pool's slower jobs.
    package static let spawner = BlockingPool(name: "netrules-spawner", limit: 2, lingering: nil)

    /// A program to start: `executablePath` with `arguments` (argv[0] included) and `environment`
    /// (`NAME=value` entries), killed after `timeout` (nil: never).
    package init(
        executablePath: String, arguments: [[UInt8]], environment: [[UInt8]], workingDirectory: String? = nil,
        standardInput: [UInt8] = [], timeout: Duration?, terminationGrace: Duration = .seconds(2),
        outputLimit: Int = 16 * 1024, standardErrorPassesThrough: Bool = false
    ) {
        self.executablePath = executablePath
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.standardInput = standardInput
        self.timeout = timeout
        self.terminationGrace = terminationGrace
        self.outputLimit = outputLimit
        self.standardErrorPassesThrough = standardErrorPassesThrough
    }

    /// This process's own environment (`environ(7)`), as `NAME=value` entries for a child that
    /// inherits it.
    package static var inheritedEnvironment: [[UInt8]] {
        var entries: [[UInt8]] = []
        var cursor = environ
        while let entry = cursor.pointee {
            entries.append(Array(UnsafeRawBufferPointer(start: entry, count: strlen(entry))))
            cursor += 1
        }
        return entries
    }

    /// Starts the process and waits, without blocking the caller's thread, until it has been reaped:
    /// `start()` on `BlockingPool`, then `supervise(_:on:standardOutput:)`.
    ///
    /// Cancelling the calling task (the daemon shutting down) stops the process as a timeout
    /// does: SIGTERM to its group, SIGKILL after `terminationGrace`; the outcome says `stopped`.
    ///
    /// - Parameters:
    ///   - loop: The event loop that watches the child's pipes and pidfd.
    ///   - standardOutput: Called with each chunk of stdout as it arrives, for a child that
    ///     reports for its whole life (an observer plugin); the outcome's `standardOutput` stays
    ///     empty then. Nil to capture stdout up to `outputLimit`.
    /// - Throws: `SystemCallError` when the pipes or the spawn fail (for example ENOENT).
    package func run(
        on loop: ThreadExecutor, standardOutput: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) async throws(SystemCallError) -> ChildProcessOutcome {
        let pool = diesWithDaemon ? Self.spawner : BlockingPool.shared
        let started = await pool.run { () -> Result<StartedChild, SystemCallError> in
            do throws(SystemCallError) {
                let started = try start()
                lifetime?.started(started.child.pid)
                return .success(started)
            } catch {
                return .failure(error)
            }
        }
        let child = try started.get()
        let outcome = await supervise(child, on: loop, standardOutput: standardOutput)
        if let lifetime {
            let pid = child.child.pid
            BlockingPool.shared.spawn { lifetime.ended(pid) }
        }
        return outcome
    }

    /// Blocking: spawns the program and makes the bytes for its stdin (the input document is not
    /// needed before the program started). The spawn returns only once the child has exec'd (vfork
    /// semantics), which under load took 14–21 ms: call it on `BlockingPool`, never on the daemon's
    /// loop, and in the same job as the rest of an action's blocking preparation (one hop there
    /// and back per action). With `diesWithDaemon`, call it on a thread that lives as long as the
    /// process (`run()` does), or the child is killed when the calling thread ends.
    /// - Throws: `SystemCallError` when the pipes or the spawn fail (for example ENOENT).
    package func start() throws(SystemCallError) -> StartedChild {
        let started = ContinuousClock.now
        let child = try spawn()
        return StartedChild(child: child, input: makeStandardInput?() ?? standardInput, start: started)
    }

    /// Supervises a child `start()` spawned from this process, by this task, until it is reaped,
    /// through `Readiness`: watches of `loop` for its pipes and pidfd, with no thread of its own.
    /// Cancelling the task stops it as `run` says.
    package func supervise(
        _ started: StartedChild, on loop: ThreadExecutor, standardOutput: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) async -> ChildProcessOutcome {
        var supervisor = ChildProcessSupervisor(
            child: started.child, process: self, input: started.input, start: started.start, loop: loop,
            streamingOutput: standardOutput)
        return await supervisor.superviseUntilReaped()
    }

    /// A write to a pipe whose reader has gone raises SIGPIPE, which would kill the daemon. Blocking
    /// it on the writing thread (the supervisor's, before it feeds stdin) turns it into EPIPE without
    /// changing the process-wide disposition; the child's mask is reset by the spawn attributes.
    static func blockBrokenPipeSignal() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private func spawn() throws(SystemCallError) -> SpawnedChild {
        let input = try sys_pipe2(O_CLOEXEC).get(call: "pipe2")
        let inputWrite = FileDescriptor(taking: input.write)
        let inputRead = FileDescriptor(taking: input.read)
        let output = try sys_pipe2(O_CLOEXEC).get(call: "pipe2")
        let outputRead = FileDescriptor(taking: output.read)
        let outputWrite = FileDescriptor(taking: output.write)
        // Passed through: the child's fd 2 is ours, which closefrom(3) below leaves alone.
        let errors = standardErrorPassesThrough ? nil : try sys_pipe2(O_CLOEXEC).get(call: "pipe2")
        let errorRead = errors.map { FileDescriptor(taking: $0.read) }
        let errorWrite = errors.map { FileDescriptor(taking: $0.write) }

        let pid = try start(
            standardInput: input.read, standardOutput: output.write, standardError: errors?.write ?? -1)

        // The child holds its own copies; ours must go, or EOF never comes.
        inputRead.closeDiscardingError()
        outputWrite.closeDiscardingError()
        errorWrite?.closeDiscardingError()
        _ = sys_setNonBlocking(input.write)
        _ = sys_setNonBlocking(output.read)
        if let errors { _ = sys_setNonBlocking(errors.read) }
        // A pidfd of an unreaped child is valid even if it has already exited. Without one
        // (ENOSYS on old kernels) the supervisor falls back to polling waitpid every 10 ms.
        // Without a pidfd (ENOSYS before Linux 5.3, EMFILE) the supervisor polls waitpid(2) every 10
        // ms instead, as the comment above says; the child is supervised either way.
        let pidfd = try? sys_pidfd_open(pid).get(call: "pidfd_open")
        return SpawnedChild(
            pid: pid, pidfd: pidfd.map(FileDescriptor.init(taking:)), standardInput: inputWrite,
            standardOutput: outputRead, standardError: errorRead
        )
    }

    /// Starts the child with posix_spawn(3) (or `sys_spawn`, see `user` and `diesWithDaemon`), the three descriptors as its stdin, stdout and stderr
    /// (-1: ours).
    private func start(
        standardInput: CInt, standardOutput: CInt, standardError: CInt
    ) throws(SystemCallError) -> pid_t {
        if user != nil || diesWithDaemon {
            let argv = CStringArray(arguments)
            let envp = CStringArray(environment)
            defer {
                argv.free()
                envp.free()
            }
            return try sys_spawn(
                executablePath, argv.pointer, envp.pointer, standardInput: standardInput,
                standardOutput: standardOutput, standardError: standardError, workingDirectory: workingDirectory,
                credentials: user.map { ($0.uid, $0.gid, $0.groups) }, deathSignal: diesWithDaemon ? SIGKILL : 0
            ).get()
        }
        return try Self.withSpawnArguments(arguments, environment) { fileActions, attributes, argv, envp in
            // dup2 onto 0/1/2 clears close-on-exec on the copies only; our ends stay close-on-exec.
            posix_spawn_file_actions_adddup2(fileActions, standardInput, 0)
            posix_spawn_file_actions_adddup2(fileActions, standardOutput, 1)
            if standardError >= 0 { posix_spawn_file_actions_adddup2(fileActions, standardError, 2) }
            if let workingDirectory {
                if case .failure(let error) = sys_posix_spawn_file_actions_addchdir_np(fileActions, workingDirectory) {
                    return .failure(error)
                }
            }
            // Descriptors some library opened without close-on-exec must not reach the child either.
            _ = sys_posix_spawn_file_actions_addclosefrom_np(fileActions, 3)
            return sys_posix_spawn(executablePath, fileActions, attributes, argv, envp)
        }.get(call: "posix_spawn")
    }

    /// Builds the C arrays and spawn attributes `posix_spawn` needs and frees them afterwards:
    /// a process group of the child's own, an empty signal mask, default dispositions.
    static func withSpawnArguments(
        _ arguments: [[UInt8]], _ environment: [[UInt8]],
        _ body: (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafeMutablePointer<posix_spawnattr_t>,
            UnsafePointer<UnsafeMutablePointer<CChar>?>, UnsafePointer<UnsafeMutablePointer<CChar>?>
        ) -> Result<pid_t, Errno>
    ) -> Result<pid_t, Errno> {
        let fileActions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
        let attributes = UnsafeMutablePointer<posix_spawnattr_t>.allocate(capacity: 1)
        posix_spawn_file_actions_init(fileActions)
        posix_spawnattr_init(attributes)
        defer {
            posix_spawn_file_actions_destroy(fileActions)
            posix_spawnattr_destroy(attributes)
            fileActions.deallocate()
            attributes.deallocate()
        }
        // A new group led by the child (pgid 0 = its own pid), so a timeout can signal everything
        // it started; an empty signal mask and default dispositions, so a signal we block or ignore
        // here (SIGPIPE) is not inherited.
        posix_spawnattr_setflags(
            attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        )
        posix_spawnattr_setpgroup(attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in 1...31 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, CInt(signal)) }
        posix_spawnattr_setsigdefault(attributes, &defaults)

        let argv = CStringArray(arguments)
        let envp = CStringArray(environment)
        defer {
            argv.free()
            envp.free()
        }
        return body(fileActions, attributes, argv.pointer, envp.pointer)
    }
}

/// What `ChildProcess.run()` tells of a child's life, on threads that may block (`lifetime`).
package protocol ChildLifetimeRecord: Sendable {
    /// The child `pid`, which leads a process group of its own, has started.
    func started(_ pid: pid_t)
    /// The child `pid` has been reaped.
    func ended(_ pid: pid_t)
}

/// The parent's side of a started child.
/// A child `ChildProcess.start()` spawned, with what its stdin gets, for `supervise`.
package struct StartedChild: Sendable {
    let child: SpawnedChild
    let input: [UInt8]
    /// When the spawn began: the timeout counts from here.
    let start: ContinuousClock.Instant
}

struct SpawnedChild: Sendable {
    var pid: pid_t
    var pidfd: FileDescriptor?
    var standardInput: FileDescriptor
    var standardOutput: FileDescriptor
    /// Nil when the child's stderr passes through to ours.
    var standardError: FileDescriptor?
}

/// A NULL-terminated array of C strings made from byte strings.
///
/// C strings end at the first NUL, so a value holding a NUL byte (legal in an SSID) is cut there;
/// callers that must keep such bytes pass them another way (the JSON document on stdin).
struct CStringArray {
    let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [[UInt8]]) {
        count = strings.count
        pointer = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            let bytes = string.prefix { $0 != 0 }
            let element = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (offset, byte) in bytes.enumerated() { element[offset] = CChar(bitPattern: byte) }
            element[bytes.count] = 0
            pointer[index] = element
        }
        pointer[strings.count] = nil
    }

    func free() {
        for index in 0..<count { pointer[index]?.deallocate() }
        pointer.deallocate()
    }
}
