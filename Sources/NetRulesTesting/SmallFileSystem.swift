@preconcurrency import Glibc
import Testing

/// A tmpfs of a fixed size mounted on a directory, for tests of what a full disk does: ``fill()``
/// takes every free byte with a file of its own, ``makeRoom()`` deletes it.
///
/// Mounting needs root (`CAP_SYS_ADMIN`); ``isAvailable`` tries it once, so a suite can be skipped
/// with ``unavailableReason`` instead of failing where it cannot run. ``unmount()`` detaches it
/// (`MNT_DETACH`) even while a process still has a file open in it.
package final class SmallFileSystem: Sendable {
    /// The mount point.
    package let path: String
    private var filler: String { path + "/.filler" }

    /// Mounts a tmpfs of `bytes` on `path`, an existing empty directory.
    /// - Throws: `TestError` with the errno when it cannot be mounted.
    package init(at path: String, bytes: Int = 1 << 20) throws {
        self.path = path
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            throw TestError("mount -t tmpfs -o size=\(bytes) tmpfs \(path): errno \(errno)")
        }
    }

    /// Whether a tmpfs can be mounted here (tried once, on a directory of its own).
    package static let isAvailable: Bool = {
        let directory = TemporaryDirectory("netrules-tmpfs-probe")
        defer { directory.remove() }
        guard let probe = try? SmallFileSystem(at: directory.path, bytes: 64 << 10) else { return false }
        probe.unmount()
        return true
    }()

    /// Shown in the test report when a suite skips.
    package static let unavailableReason: Comment =
        "SKIPPED: these tests mount a 1 MiB tmpfs, which needs root (CAP_SYS_ADMIN); none of them ran"

    /// Fills every free byte with one file; returns how many bytes it took.
    @discardableResult
    package func fill() -> Int {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var total = 0
        var chunk = 64 << 10
        let zeros = [UInt8](repeating: 0, count: chunk)
        while chunk > 0 {
            let written = zeros.withUnsafeBytes { write(fd, $0.baseAddress, chunk) }
            if written > 0 {
                total += written
            } else {
                chunk /= 2
            }
        }
        return total
    }

    /// Deletes what ``fill()`` wrote.
    package func makeRoom() {
        unlink(filler)
    }

    /// The names in the file system's root, `.filler` left out, sorted.
    package func names() -> [String] {
        guard let stream = opendir(path) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != "..", name != ".filler" { names.append(name) }
        }
        return names.sorted()
    }

    /// Detaches the file system (lazily, so open files do not keep it busy).
    package func unmount() {
        umount2(path, Int32(MNT_DETACH))
    }
}
