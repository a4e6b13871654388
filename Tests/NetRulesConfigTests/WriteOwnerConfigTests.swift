import NetRulesConfig
import NetRulesCore
import Testing

/// `write:`'s `owner:` and `run:`'s `cwd: ~USER` when rules load (issue 37, item 5): the account
/// is read as `user:` is (an account this system lacks is an error, at its name), a group this
/// system lacks is an error at the group, and a malformed owner says what the shape is.
@Suite(.timeLimit(.minutes(1)))
struct WriteOwnerConfigTests {
    static func load(_ actions: String) -> LoadResult {
        var loader = RuleLoader(findActionPlugin: { _, _ in nil })
        loader.userProblem = {
            ["alice", "root", "nobody"].contains($0) ? nil : "there is no user '\($0)' on this system"
        }
        loader.groupProblem = { ["staff", "daemon"].contains($0) ? nil : "there is no group '\($0)' on this system" }
        let text = """
            version: 1
            rules:
              - name: desk
                when: { ssid: Office }
                do:
            \(actions)
            """
        return loader.load([RuleSource(file: "r.yaml", bytes: Array(text.utf8))])
    }

    static func diagnostics(_ result: LoadResult) -> [String] {
        result.diagnostics.map { "\($0.mark.line):\($0.mark.column) \($0.keyPath ?? "") \($0.message)" }
    }

    @Test func ownerAndModeAreRead() throws {
        let result = Self.load(
            """
                  - write: { path: /srv/alice/last, content: x, owner: alice, mode: "0640" }
                  - write: { path: /srv/alice/log, content: x, owner: "alice:staff", append: true }
                  - write: { path: /srv/desk, content: x, owner: active }
                  - write: { path: /srv/plain, content: x }
            """)
        #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())")
        let writes = try #require(result.ruleSet.rules.first).actions.compactMap(\.action.write)
        #expect(
            writes.map(\.owner) == [
                FileOwner(user: .named("alice")), FileOwner(user: .named("alice"), group: "staff"),
                FileOwner(user: .activeSession), nil,
            ])
        #expect(writes[0].mode == 0o640)
        #expect(writes.map(\.owner?.description) == ["alice", "alice:staff", "active", nil])
    }

    @Test func anUnknownOwnerOrGroupIsAnErrorWhereItIsWritten() {
        let result = Self.load(
            """
                  - write: { path: /srv/a, content: x, owner: bob }
                  - write: { path: /srv/b, content: x, owner: "alice:wheel" }
            """)
        #expect(
            Self.diagnostics(result) == [
                "6:51 rules[0].do[0].write.owner there is no user 'bob' on this system",
                "7:58 rules[0].do[1].write.owner there is no group 'wheel' on this system",
            ])
        #expect(result.ruleSet.rules.isEmpty)
    }

    @Test(arguments: ["\"alice:\"", "\":staff\"", "\"alice:staff:x\"", "\"\""])
    func aMalformedOwnerSaysWhatAnOwnerIs(owner: String) {
        let result = Self.load("      - write: { path: /srv/a, content: x, owner: \(owner) }")
        let text = owner.dropFirst().dropLast()
        #expect(
            Self.diagnostics(result) == [
                "6:51 rules[0].do[0].write.owner '\(text)' is not an owner: expected 'user' or 'user:group'"
            ])
    }

    @Test func userBesideAWriteSuggestsOwner() {
        let result = Self.load(
            """
                  - write: { path: /srv/a, content: x }
                    user: alice
            """)
        #expect(result.diagnostics.map(\.message) == ["'user' applies to run and plugin actions, not 'write'"])
        #expect(
            result.diagnostics.first?.hint
                == "a file write runs inside the daemon; 'write: { ..., owner: alice }' gives the file to that user")
    }

    @Test func aCwdOfTildeUserNeedsTheAccount() throws {
        let result = Self.load(
            """
                  - run: { command: "true", cwd: ~alice, user: alice }
                  - run: { command: "true", cwd: ~alice/projects }
                  - run: { command: "true", cwd: ~bob/projects }
            """)
        #expect(Self.diagnostics(result) == ["8:39 rules[0].do[2].run.cwd there is no user 'bob' on this system"])
        let fine = Self.load("      - run: { command: \"true\", cwd: ~alice/projects, user: alice }")
        let run = try #require(fine.ruleSet.rules.first?.actions.first?.action.run)
        #expect(run.workingDirectory == "~alice/projects")
    }

    @Test func aWritePathStillTakesNoTildeUser() {
        let result = Self.load("      - write: { path: ~alice/last, content: x, owner: alice }")
        #expect(Self.diagnostics(result) == ["6:24 rules[0].do[0].write.path '~alice/last' is not an absolute path"])
    }
}
