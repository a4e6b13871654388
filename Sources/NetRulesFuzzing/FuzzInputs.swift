import Foundation

/// Finding and reading fuzz inputs: corpus and regression files, for the replayer and the tests.
package enum FuzzInputs {
    /// `path` itself when it is a file, else every file under it (recursively), sorted; names that
    /// start with a dot (`.gitkeep`) are skipped.
    package static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [path] }
        let base = URL(fileURLWithPath: path)
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(
            at: base, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        while let url = enumerator?.nextObject() as? URL {
            // A file that cannot be inspected is not a corpus input the replay could read.
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                found.append(url.path)
            }
        }
        return found.sorted()
    }

    /// The bytes of a file, or nil when it cannot be read.
    package static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }
}
