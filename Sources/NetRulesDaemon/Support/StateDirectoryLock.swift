@preconcurrency import Glibc
import NetRulesSystem

/// One daemon per state directory: an exclusive `flock(2)` on `<state-dir>/lock`, held for the
/// daemon's life and released by the kernel when the process ends, however it ends.
///
/// Two daemons on one state directory would both fire every rule (two webhooks with different
/// idempotency keys) and overwrite each other's `state.json`. The lock is taken before anything
/// else, so the second daemon exits at once and names the holder. The file also holds the
/// holder's PID, for that message. Taking the lock writes to the directory, which doubles as the
/// check that the state directory is writable at all (a read-only one would lose every webhook).
package final class StateDirectoryLock: Sendable {
    /// Why the lock could not be taken, as a sentence for the log.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    private let descriptor: FileDescriptor

    /// Creates the directory when missing, as `Daemon.createStateDirectory` does (mode 0700, each
    /// new entry fsynced into its parent), and takes the lock.
    /// - Throws: `Failure` naming the holder's PID, or saying why the directory is unusable.
    package init(directory: String) throws(Failure) {
        let path = directory + "/lock"
        let fd: CInt
        do throws(SystemCallError) {
            // The lock comes first at start, so this is where a new state directory is made.
            try Daemon.createStateDirectory(directory)
            fd = try sys_open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600).get(call: "open")
        } catch {
            throw Failure(
                description: "the state directory '\(directory)' is not usable (\(error.errno.message)): netrules "
                    + "keeps its rule state and webhook outbox there; make it writable by this user or choose "
                    + "another with --state-dir")
        }
        descriptor = FileDescriptor(taking: fd)
        guard case .success = sys_flock(fd, LOCK_EX | LOCK_NB) else {
            let holder = Self.readPID(fd).map { "PID \($0)" } ?? "another process"
            descriptor.closeDiscardingError()
            throw Failure(
                description: "another netrules daemon (\(holder)) is using the state directory '\(directory)'; "
                    + "stop it first, or give this daemon its own --state-dir")
        }
        let pid = Array("\(getpid())\n".utf8)
        let stored = pid.withUnsafeBytes { sys_pwrite(fd, $0, 0) }.flatMap { written in
            written == pid.count ? sys_ftruncate(fd, off_t(pid.count)).flatMap { _ in sys_fsync(fd) } : .success(-1)
        }
        guard case .success(0) = stored else {
            // A short write has no errno of its own; it is reported as one of ENOSPC (what it means).
            let reason: Errno = if case .failure(let error) = stored { error } else { Errno(rawValue: ENOSPC) }
            descriptor.closeDiscardingError()
            throw Failure(
                description: "the state directory '\(directory)' is not writable (\(reason.message)): netrules "
                    + "keeps its rule state and webhook outbox there; make it writable or choose another with "
                    + "--state-dir")
        }
    }

    /// Releases the lock (closing the descriptor); the process ending does the same.
    package func release() { descriptor.closeDiscardingError() }

    private static func readPID(_ fd: CInt) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        guard case .success(let count) = buffer.withUnsafeMutableBytes({ sys_pread(fd, $0, 0) }), count > 0 else {
            return nil
        }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: "\n "))
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
