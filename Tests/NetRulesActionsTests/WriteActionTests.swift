@preconcurrency import Glibc
import NetRulesCore
import NetRulesTesting
import Testing

@testable import NetRulesActions

@Suite(.timeLimit(.minutes(1)))
struct WriteActionTests {
    private func write(_ action: WriteAction, facts: [FactKey: FactValue?] = [:]) async -> ActionResult {
        await WriteExecutor(loop: .testLoop).execute(
            action, in: Fixtures.context(Fixtures.firing(facts: facts)),
            result: ActionResult(rule: "r", edge: .enter, index: 0, kind: "write"))
    }

    @Test func replaceCreatesParentsAndSetsTheMode() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("a/b/c/state.txt")
        let result = await write(
            WriteAction(path: path, content: Fixtures.template("ssid={{ssid}}\n"), mode: 0o600),
            facts: [.ssid: "Office"])
        #expect(result.isSuccess, "\(result)")
        #expect(Fixtures.readFile(path) == Array("ssid=Office\n".utf8))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let again = await write(WriteAction(path: path, content: Fixtures.template("second"), mode: 0o644))
        #expect(again.isSuccess)
        #expect(Fixtures.readFile(path) == Array("second".utf8))
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "an existing file keeps its mode")
    }

    @Test func appendAddsWholeRecords() async {
        let directory = TemporaryDirectory()
        let path = directory.file("log/events.log")
        for edge in ["one", "two", "three"] {
            let result = await write(
                WriteAction(path: path, content: Fixtures.template("\(edge) {{rule}}\n"), append: true))
            #expect(result.isSuccess)
        }
        #expect(Fixtures.readFile(path) == Array("one office\ntwo office\nthree office\n".utf8))
    }

    @Test(arguments: HostileSSIDs.corpus)
    func hostileSSIDIsWrittenByteExact(ssid: [UInt8]) async {
        let directory = TemporaryDirectory()
        let path = directory.file("ssid")
        let result = await write(
            WriteAction(path: path, content: Fixtures.template("{{ssid}}")), facts: [.ssid: .text(ssid)])
        #expect(result.isSuccess)
        #expect(Fixtures.readFile(path) == ssid)
        #expect(!Fixtures.exists(directory.file("pwned")))
    }

    @Test(arguments: [
        ("", "the path is empty"), ("relative/file", "the path must be absolute (or start with '~/')"),
        ("/etc/../etc/x", "the path must not contain '..'"), ("/tmp/", "the path names a directory, not a file"),
        ("~root/x", "'~user' paths are not supported; write the home directory out or use '~/'"),
        ("/tmp", "the path is a directory"),
    ])
    func invalidPathsAreRejected(path: String, problem: String) {
        #expect(PathExpansion.validateWritePath(path) == problem)
    }

    @Test func validPathsPassAndTildeExpands() {
        #expect(PathExpansion.validateWritePath("/var/lib/netrules/state") == nil)
        #expect(PathExpansion.validateWritePath("~/state/x") == nil)
        #expect(PathExpansion.expandingTilde("~/x") == PathExpansion.homeDirectory() + "/x")
        #expect(PathExpansion.expandingTilde("/abs/~/x") == "/abs/~/x")
    }

    @Test func aFailedWriteIsReportedWithTheSystemCall() async throws {
        let directory = TemporaryDirectory()
        Fixtures.writeFile(directory.file("file"), [])
        let result = await write(WriteAction(path: directory.file("file/below"), content: Fixtures.template("x")))
        guard case .failed(let error) = result.outcome else { Issue.record("writing below a file succeeded"); return }
        #expect(error.code == .ioFailed)
        #expect("\(error)".contains("'mkdir' failed: (20) Not a directory"))
    }
}
