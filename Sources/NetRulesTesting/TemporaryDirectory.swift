import Foundation
@preconcurrency import Glibc

/// A fresh directory under /tmp, removed with everything in it by `remove()`.
package struct TemporaryDirectory {
    package let path: String

    package init(_ prefix: String = "netrules-daemonsys") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(errno)")
        path = String(cString: created!)
    }

    package func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    package func write(_ name: String, _ content: String = "version: 1\nrules: []\n", mode: mode_t = 0o644) -> String {
        let full = file(name)
        precondition(FileManager.default.createFile(atPath: full, contents: Data(content.utf8)), "cannot write \(full)")
        chmod(full, mode)
        return full
    }

    package func remove() {
        // Undo sticky/immutable-looking modes first so removal cannot fail on a directory we locked down.
        // A test's clean-up; what cannot be removed stays under /tmp and never changes a result.
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The number of open descriptors of this process whose /proc/self/fd link contains `kind`
/// (`inotify`, `eventfd`, `socket:`), to prove that a component closed what it opened.
package func openDescriptorCount(matching kind: String) -> Int {
    // An unreadable /proc/self/fd counts as none open, which makes a leak check fail loudly rather
    // than pass.
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.filter { entry in
        // A descriptor closed between listing and reading its link is not open any more, so not
        // counted.
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry) else {
            return false
        }
        return target.contains(kind)
    }.count
}

/// Fails the awaiting test if `body` does not finish within `seconds` (a failure guard only).
package func withGuard<T: Sendable>(
    seconds: Double = 10, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            // A cancelled guard timer means the body finished first, which is the success path.
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw GuardTimeout(what: what)
        }
        return value
    }
}

package struct GuardTimeout: Error, CustomStringConvertible {
    package let what: String
    package var description: String { "timed out waiting for \(what)" }
}
