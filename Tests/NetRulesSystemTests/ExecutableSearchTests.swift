@preconcurrency import Glibc
import NetRulesSystem
import NetRulesTesting
import Testing

/// The one `PATH` search: the first executable regular file, in order, with an empty or relative
/// entry passed over by the daemon's own searches and ending a shell's.
@Suite(.timeLimit(.minutes(1)))
struct ExecutableSearchTests {
    /// `a/` holds a directory and a file without an execute bit named `tool`, `b/` the program.
    static func directories() -> TemporaryDirectory {
        let root = TemporaryDirectory("netrules-search")
        mkdir(root.file("a"), 0o755)
        mkdir(root.file("b"), 0o755)
        mkdir(root.file("a/tool"), 0o755)
        root.write("a/plain", "data\n", mode: 0o644)
        root.write("b/plain", "#!/bin/sh\n", mode: 0o755)
        root.write("b/tool", "#!/bin/sh\n", mode: 0o755)
        return root
    }

    @Test(arguments: [ExecutableSearch.Entries.absoluteOnly, .asTheShellSearches])
    func theFirstExecutableRegularFileIsFound(entries: ExecutableSearch.Entries) {
        let root = Self.directories()
        defer { root.remove() }
        let along = "/nonexistent:" + root.file("a") + ":" + root.file("b")
        let tool = ExecutableSearch.find("tool", along: along, entries: entries)
        #expect(tool == root.file("b/tool"), "not the directory a/tool")
        #expect(ExecutableSearch.find("plain", along: along, entries: entries) == root.file("b/plain"))
        #expect(ExecutableSearch.find("missing", along: along, entries: entries) == nil)
        #expect(ExecutableSearch.find("sh", along: "/nonexistent:/bin", entries: entries) == "/bin/sh")
        for name in ["", "b/tool", "tool\0x"] {
            #expect(ExecutableSearch.find(name, along: root.path + ":" + along, entries: entries) == nil, "\(name)")
        }
    }

    @Test(arguments: ["", ".", "relative/bin", "/usr/lib%builtin"])
    func anEntryThatIsNoAbsoluteDirectoryIsPassedOverOrLeftToTheShell(entry: String) {
        let root = Self.directories()
        defer { root.remove() }
        let along = entry + ":" + root.file("b")
        #expect(ExecutableSearch.find("tool", along: along, entries: .absoluteOnly) == root.file("b/tool"))
        #expect(ExecutableSearch.find("tool", along: along, entries: .asTheShellSearches) == nil)
    }

    @Test func directoriesComeFirstAndEachSearchJoinsAsItsOwnerDoes() {
        let root = Self.directories()
        defer { root.remove() }
        let trailing = root.file("b") + "/"
        #expect(
            ExecutableSearch.find("tool", in: [trailing], along: root.file("a"), entries: .absoluteOnly)
                == root.file("b/tool"))
        #expect(ExecutableSearch.find("tool", along: trailing, entries: .asTheShellSearches) == root.file("b//tool"))
        #expect(ExecutableSearch.find("tool", along: "", entries: .absoluteOnly) == nil)
    }
}
