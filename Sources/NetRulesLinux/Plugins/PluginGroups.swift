@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// The process groups of the running observer plugins, recorded in the state directory
/// (`plugins.pids`), so that a daemon started after one that died in any way stops what that one
/// left running before it starts its own plugins (docs/plugins.md, "Death of the daemon").
///
/// `PR_SET_PDEATHSIG` (`ChildProcess.diesWithDaemon`) already kills each plugin process the
/// moment the daemon dies; this record also catches what it cannot: processes a plugin forked,
/// which stay in its group, and a plugin that lost the death signal (an exec of a set-user-ID
/// program clears it). A line is `BOOT_ID PGID STARTTIME SID`: a group is killed only within the
/// same boot, when its leader is still the process recorded (its start time in clock ticks, from
/// `/proc/PID/stat`, so a reused pid is left alone), or, its leader gone, when every member is in
/// the recorded session and started after the leader did; never a child of this process.
package final class PluginGroups: ChildLifetimeRecord {
    /// The daemon's record; it writes nothing until ``adopt(directory:logger:)`` names the file.
    package static let shared = PluginGroups()

    private struct Entry: Hashable {
        var group: pid_t
        var startTime: UInt64
        var session: pid_t
    }

    private struct State {
        var path: String?
        var bootID = ""
        var entries: Set<Entry> = []
    }

    private let state = Mutex(State())

    /// Blocking: stops the plugin groups the record at `directory` names that a previous daemon
    /// left running, then records this daemon's plugins there. Call it before any plugin starts.
    package func adopt(directory: String, logger: Logger) {
        let path = directory + "/plugins.pids"
        let bootID = Self.bootID()
        // An unreadable record is as good as none, and it is rewritten below.
        let text = ((try? FileContents.read(path, limit: 64 * 1024)) ?? nil).map { String(decoding: $0, as: UTF8.self) }
        var stopped: [pid_t] = []
        for line in (text ?? "").split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 4, String(fields[0]) == bootID, let group = pid_t(fields[1]),
                let startTime = UInt64(fields[2]), let session = pid_t(fields[3]), group > 1
            else { continue }
            if Self.isLeftOver(Entry(group: group, startTime: startTime, session: session)),
                case .success = sys_kill(-group, SIGKILL)
            {
                stopped.append(group)
            }
        }
        if !stopped.isEmpty {
            logger.notice(
                "stopped \(stopped.count) observer plugin process group(s) a previous netrules left running "
                    + "(\(stopped.map(String.init).joined(separator: ", ")))")
        }
        state.withLock { state in
            state.path = path
            state.bootID = bootID
            write(state)
        }
    }

    /// Blocking: records the group a plugin just started leads (its pid).
    package func started(_ pid: pid_t) {
        guard let stat = ProcessStat(pid: pid) else { return }
        state.withLock { state in
            guard state.path != nil else { return }
            state.entries.insert(Entry(group: pid, startTime: stat.startTime, session: stat.session))
            write(state)
        }
    }

    /// Blocking: forgets the group of a plugin that has been reaped.
    package func ended(_ pid: pid_t) {
        state.withLock { state in
            guard state.path != nil else { return }
            let before = state.entries.count
            state.entries = state.entries.filter { $0.group != pid }
            if state.entries.count != before { write(state) }
        }
    }

    private func write(_ state: State) {
        guard let path = state.path else { return }
        let lines = state.entries.map { "\(state.bootID) \($0.group) \($0.startTime) \($0.session)\n" }
        // The record is a safety net behind PR_SET_PDEATHSIG; a failed write
        // (a full disk, which the state files report) costs only the cleanup after a crash.
        // No fsync: it must survive the daemon being killed, which the page cache does.
        try? AtomicFile.replace(path, with: Array(lines.joined().utf8), mode: 0o600, sync: false)
    }

    private static func isLeftOver(_ entry: Entry) -> Bool {
        let me = getpid()
        if let leader = ProcessStat(pid: entry.group) {
            return leader.startTime == entry.startTime && leader.group == entry.group && leader.parent != me
        }
        // The leader is gone; the pid cannot be reused while its group has members, but a new group
        // of that number may have been made since: only members that fit the recorded one count.
        var members = 0
        // Without a listing of /proc no member can be checked, so none is killed.
        let pids = ((try? sys_listDirectory("/proc").get(call: "opendir")) ?? []).compactMap { pid_t($0) }
        for pid in pids {
            guard let stat = ProcessStat(pid: pid), stat.group == entry.group else { continue }
            guard stat.session == entry.session, stat.startTime >= entry.startTime, stat.parent != me else {
                return false
            }
            members += 1
        }
        return members > 0
    }

    private static func bootID() -> String { BootID.current() ?? "" }
}

/// The fields of `/proc/PID/stat` the record needs.
struct ProcessStat {
    var parent: pid_t
    var group: pid_t
    var session: pid_t
    /// Clock ticks after boot.
    var startTime: UInt64

    init?(pid: pid_t) {
        guard let bytes = (try? FileContents.read("/proc/\(pid)/stat", limit: 4096)) ?? nil,
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // "pid (comm) state ppid pgrp session … starttime (22nd) …": comm may hold spaces.
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " ")).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard fields.count > 19, fields[0] != "Z", let parent = pid_t(fields[1]), let group = pid_t(fields[2]),
            let session = pid_t(fields[3]), let startTime = UInt64(fields[19])
        else { return nil }
        (self.parent, self.group, self.session, self.startTime) = (parent, group, session, startTime)
    }
}
