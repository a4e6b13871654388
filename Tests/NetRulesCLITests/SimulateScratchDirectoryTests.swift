import Foundation
@preconcurrency import Glibc
import NetRulesTesting
import Testing

@testable import NetRulesCLI

/// Where `simulate --execute` keeps its state without `--state-dir`, and how it is removed after.
@Suite(.timeLimit(.minutes(1)))
struct SimulateScratchDirectoryTests {
    /// What `FileManager.default.temporaryDirectory.appendingPathComponent(name).path` gave for
    /// each `TMPDIR`, the working directory being `/work`.
    @Test(
        arguments: [
            (nil, "/tmp/x"), ("/tmp", "/tmp/x"), ("/tmp/", "/tmp/x"), ("/var//tmp/", "/var//tmp/x"),
            ("/tmp///", "/tmp///x"), ("/a b/", "/a b/x"), ("/x/./y/..", "/x/./y/../x"), ("", "/x"),
            ("rel", "/work/rel/x"), ("rel/", "/work/rel/x"), ("rel//y/", "/work/rel//y/x"),
        ] as [(String?, String)])
    func isInTMPDIRAsFoundationJoinedIt(temporaryDirectory: String?, expected: String) {
        let path = SimulateCommand.scratchDirectory(
            temporaryDirectory: temporaryDirectory, workingDirectory: { "/work" }, name: "x")
        #expect(path == expected)
    }

    @Test func aRelativeTMPDIRUnderTheRootDirectoryHasOneSlash() {
        #expect(
            SimulateCommand.scratchDirectory(temporaryDirectory: "rel", workingDirectory: { "/" }, name: "x")
                == "/rel/x")
    }

    /// This process's own `TMPDIR`, whatever it is, as Foundation reads it.
    @Test func agreesWithFoundationForThisProcess() {
        let path = SimulateCommand.scratchDirectory(
            temporaryDirectory: getenv("TMPDIR").map { String(cString: $0) },
            workingDirectory: { FileManager.default.currentDirectoryPath }, name: "netrules-simulate-x")
        #expect(path == FileManager.default.temporaryDirectory.appendingPathComponent("netrules-simulate-x").path)
    }

    @Test func removingTheTreeRemovesEverythingInItAndNothingALinkPointsTo() throws {
        let outside = TemporaryDirectory("netrules-scratch-outside")
        defer { outside.remove() }
        let kept = outside.write("kept.txt", "keep")
        let root = TemporaryDirectory("netrules-scratch")
        defer { root.remove() }
        try #require(mkdir(root.file("outbox"), 0o700) == 0)
        try #require(mkdir(root.file("outbox/failed"), 0o700) == 0)
        root.write("outbox/failed/a.json", "{}")
        root.write("state.json", "{}")
        root.write(".hidden", "")
        try #require(symlink(outside.path, root.file("link")) == 0)
        try #require(symlink(kept, root.file("outbox/file-link")) == 0)

        SimulateCommand.removeTree(root.path)

        #expect(access(root.path, F_OK) != 0)
        #expect(access(kept, F_OK) == 0)
        SimulateCommand.removeTree(root.path + "/missing")
    }
}
