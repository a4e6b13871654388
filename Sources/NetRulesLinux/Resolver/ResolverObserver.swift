internal import CNetRulesLinux
@preconcurrency import Glibc
import NetRulesCore
import NetRulesSystem
import Synchronization

/// Reports the `dns` fact from resolv.conf, re-reading it when it changes.
///
/// Changes arrive through inotify on the file's directory (and, when the file is a symlink such as
/// systemd-resolved's, on the target's directory too), because resolvers replace the file by
/// renaming a new one over it, which a watch on the old inode would miss. No polling, and no
/// thread of its own: the task waits for the inotify descriptor (`Readiness` on the loop it is given),
/// and reads the file on the blocking pool.
package struct ResolverObserver: Observer {
    /// `dns`.
    package let name = "dns"
    /// The file to read, `/etc/resolv.conf` by default.
    package var path: String
    /// The event loop that watches the inotify descriptor.
    let loop: ThreadExecutor

    /// Creates the observer for `path`, waiting for its changes on `loop`.
    package init(loop: ThreadExecutor, path: String = "/etc/resolv.conf") {
        self.loop = loop
        self.path = path
    }

    /// The `dns` fact for the file as it is now: the nameservers, or an empty list when the file is missing.
    package static func currentFact(path: String = "/etc/resolv.conf") -> FactState {
        let servers = readText(path).map(ResolvConf.nameservers) ?? []
        return .value(.list(servers.map { FactValue.string($0) }))
    }

    /// Reports `dns` now and after every change, until cancelled.
    /// - Throws: `SystemCallError` when inotify cannot be set up.
    package func run(reporting updates: FactReporter) async throws {
        let files = try FileWatcher()
        defer { files.close() }
        let (path, loop) = (self.path, self.loop)
        let watched = Mutex<Set<String>>([])
        /// Watches the file's directory and its symlink target's (readlink: on the pool).
        @Sendable func addWatches() throws {
            for directory in [Self.directoryName(path), Self.readLinkTarget(path).map(Self.directoryName)].compactMap({
                $0
            })
            where !watched.withLock({ $0.contains(directory) }) {
                _ = try files.addWatch(directory, mask: Self.mask)
                watched.withLock { _ = $0.insert(directory) }
            }
        }
        try await BlockingPool.shared.run { Result { try addWatches() } }.get()
        var last: FactState = .unknown
        while true {
            let fact = await BlockingPool.shared.run {
                // A new symlink target may live in a directory we do not watch yet.
                // A directory that cannot be watched yet (the new symlink target's directory does
                // not exist, or ENOSPC) is tried again on the next event; the content is re-read either way.
                try? addWatches()
                return Self.currentFact(path: path)
            }
            if fact != last {
                last = fact
                updates.yield(FactUpdate([.dns: fact]))
            }
            // Which events arrived does not matter, only the file's content does.
            do {
                _ = try await files.withDescriptor {
                    try await Readiness.wait(on: loop, for: $0, deadline: nil)
                }
            } catch is CancellationError {
                return
            }
            _ = try files.readEvents()
        }
    }

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)

    private static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The absolute target of a symlink, nil when `path` is not one.
    private static func readLinkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.hasPrefix("/") ? target : directoryName(path) + "/" + target
    }

    static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
