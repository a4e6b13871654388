@preconcurrency import Glibc
import NetRulesTesting
import Testing

@testable import NetRulesSystem

/// The passwd name of uid 65534 (`nobody` on Debian), as the messages show it.
private func nobodyName() -> String {
    guard let entry = getpwuid(65534), let name = entry.pointee.pw_name else { return "uid 65534" }
    return String(cString: name)
}

/// Real files with real modes and owners; changing owners needs root, which these machines have.
@Suite(.timeLimit(.minutes(1)), .enabled(if: geteuid() == 0, "chown and the root-only policy need root"))
struct FileTrustTests {
    @Test func rootOwnedReadOnlyFileIsTrusted() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml", mode: 0o644)
        #expect(FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile) == nil)
        #expect(FileTrust.problem(withFile: file, kind: .ruleFile) == nil, "the default asks geteuid()")
    }

    @Test func worldWritableFileIsRefusedWithTheFix() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml", mode: 0o666)
        #expect(
            FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile)
                == "refusing rule file \(file): it is writable by other users (mode 0666, owner root); run: chmod go-w \(file)"
        )
    }

    @Test func groupWritableFileIsRefused() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml", mode: 0o664)
        #expect(
            FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile)
                == "refusing rule file \(file): it is writable by group root (mode 0664, owner root); run: chmod g-w \(file)"
        )
    }

    @Test func fileOwnedByAnotherUserIsRefused() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml", mode: 0o644)
        #expect(chown(file, 65534, 0) == 0)
        let name = nobodyName()
        #expect(
            FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile)
                == "refusing rule file \(file): it is owned by \(name) (uid 65534), not root (mode 0644, owner \(name)); run: chown root \(file)"
        )
        chmod(file, 0o666)
        #expect(
            FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile)
                == "refusing rule file \(file): it is owned by \(name) (uid 65534), not root, and it is writable by other users (mode 0666, owner \(name)); run: chown root \(file) && chmod go-w \(file)"
        )
    }

    @Test func worldWritableDirectoryIsRefusedUnlessSticky() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.file("shared")
        #expect(mkdir(shared, 0o755) == 0 && chmod(shared, 0o777) == 0)
        let file = directory.write("shared/a.yaml", mode: 0o644)
        #expect(
            FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile)
                == "refusing rule file \(file): its directory \(shared) is writable by other users (mode 0777, owner root); run: chmod go-w \(shared)"
        )
        // Sticky, like /tmp: others may add files but cannot replace root's.
        #expect(chmod(shared, 0o1777) == 0)
        #expect(FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile) == nil)
    }

    @Test func directoryOwnedByAnotherUserIsRefused() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let home = directory.file("home")
        #expect(mkdir(home, 0o755) == 0 && chown(home, 65534, 65534) == 0)
        let file = directory.write("home/a.yaml", mode: 0o644)
        let problem = FileTrust.problem(withFile: file, runningAsRoot: true, kind: .ruleFile)
        #expect(problem?.hasPrefix("refusing rule file \(file): its directory \(home) is owned by ") == true)
        #expect(
            problem?.hasSuffix("(uid 65534), not root (mode 0755, owner \(nobodyName())); run: chown root \(home)")
                == true)
    }

    @Test func setuidPluginIsRefusedButTheSameModeIsFineForARuleFile() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let plugin = directory.write("netrules-action-x", "#!/bin/sh\n", mode: 0o755)
        #expect(chmod(plugin, 0o4755) == 0)
        #expect(
            FileTrust.problem(withFile: plugin, runningAsRoot: true, kind: .plugin)
                == "refusing plugin \(plugin): it is setuid (mode 4755, owner root); run: chmod u-s,g-s \(plugin)")
        #expect(chmod(plugin, 0o2755) == 0)
        #expect(
            FileTrust.problem(withFile: plugin, runningAsRoot: true, kind: .plugin)?.contains("it is setgid (mode 2755")
                == true)
        #expect(FileTrust.problem(withFile: plugin, runningAsRoot: true, kind: .ruleFile) == nil)
        #expect(chmod(plugin, 0o755) == 0)
        #expect(FileTrust.problem(withFile: plugin, runningAsRoot: true, kind: .plugin) == nil)
    }

    @Test func symlinksAreFollowedAndTheMessageSaysSo() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("real.yaml", mode: 0o666)
        let link = directory.file("a.yaml")
        #expect(symlink(target, link) == 0)
        #expect(
            FileTrust.problem(withFile: link, runningAsRoot: true, kind: .ruleFile)
                == "refusing rule file \(link) (a symlink to \(target)): it is writable by other users (mode 0666, owner root); run: chmod go-w \(target)"
        )
        chmod(target, 0o644)
        #expect(FileTrust.problem(withFile: link, runningAsRoot: true, kind: .ruleFile) == nil)
    }

    @Test func symlinkTargetInAnUnsafeDirectoryIsRefused() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let open = directory.file("open")
        #expect(mkdir(open, 0o755) == 0 && chmod(open, 0o777) == 0)
        let target = directory.write("open/real.yaml", mode: 0o644)
        let link = directory.file("a.yaml")
        #expect(symlink(target, link) == 0)
        #expect(
            FileTrust.problem(withFile: link, runningAsRoot: true, kind: .ruleFile)
                == "refusing rule file \(link) (a symlink to \(target)): its directory \(open) is writable by other users (mode 0777, owner root); run: chmod go-w \(open)"
        )
    }

    @Test func notRootTrustsEverything() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("a.yaml", mode: 0o666)
        #expect(FileTrust.problem(withFile: file, runningAsRoot: false, kind: .ruleFile) == nil)
    }

    @Test func missingFileIsRefusedNotIgnored() {
        let problem = FileTrust.problem(withFile: "/nonexistent/netrules/a.yaml", runningAsRoot: true, kind: .ruleFile)
        #expect(
            problem
                == "refusing rule file /nonexistent/netrules/a.yaml: it cannot be inspected: No such file or directory")
    }

    @Test func ancestorsRunToTheRoot() {
        #expect(FileTrust.ancestors(of: "/etc/netrules/a.yaml") == ["/etc/netrules", "/etc", "/"])
        #expect(FileTrust.ancestors(of: "/a.yaml") == ["/"])
    }
}
