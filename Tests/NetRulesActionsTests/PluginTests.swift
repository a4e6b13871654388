@preconcurrency import Glibc
import NetRulesCore
import Testing

@testable import NetRulesActions

@Suite(.timeLimit(.minutes(1)))
struct PluginTests {
    private func makePlugin(_ directory: String, name: String, script: String, executable: Bool = true) {
        mkdir(directory, 0o755)
        let path = directory + "/netrules-action-" + name
        Fixtures.writeFile(path, Array("#!/bin/sh\n\(script)\n".utf8), mode: executable ? 0o755 : 0o644)
    }

    @Test func lookupPrefersPluginDirectoriesThenPath() {
        let root = TemporaryDirectory()
        makePlugin(root.file("first"), name: "notify", script: "exit 0", executable: false)
        makePlugin(root.file("second"), name: "notify", script: "exit 0")
        makePlugin(root.file("bin"), name: "notify", script: "exit 0")
        makePlugin(root.file("bin"), name: "other", script: "exit 0")
        let directories = [root.file("first"), root.file("second")]
        #expect(
            ActionCatalog.findPlugin(named: "notify", directories: directories, path: root.file("bin"))
                == root.file("second/netrules-action-notify"))
        #expect(
            ActionCatalog.findPlugin(named: "other", directories: directories, path: "::" + root.file("bin"))
                == root.file("bin/netrules-action-other"))
        #expect(ActionCatalog.findPlugin(named: "missing", directories: directories, path: root.file("bin")) == nil)
        #expect(
            ActionCatalog.findPlugin(named: "../bin/netrules-action-other", directories: directories, path: nil) == nil)
        #expect(ActionCatalog.findPlugin(named: "", directories: directories, path: nil) == nil)
    }

    @Test func aPluginGetsTheFiringAndItsOptionsOnStandardInput() async throws {
        let harness = RunnerHarness(pluginDirectories: [])
        let plugins = harness.directory.file("plugins")
        let received = harness.directory.file("received.json")
        makePlugin(plugins, name: "record", script: "cat > \(received); echo \"$NETRULES_ACTION $NETRULES_SSID\"")
        let options = ConfigValue.object([
            ConfigMember("message", .string("joined {{ssid}}")), ConfigMember("urgent", .bool(true)),
        ])
        let action = PluginAction(
            name: "record", options: options, timeout: .seconds(5),
            executablePath: ActionCatalog.findPlugin(named: "record", directories: [plugins], path: nil))
        let ssid: [UInt8] = [0x22, 0x0A, 0xFF, 0x24, 0x28]
        await harness.runner.submit(
            Fixtures.firing(rule: "p", facts: [.ssid: .text(ssid)], actions: [ActionSpec(action)]),
            wallTime: "2025-01-02T03:04:05Z")
        let results = await harness.settledResults(expecting: 1)
        #expect(results.first?.isSuccess == true, "\(results)")
        let document = try #require(Fixtures.readFile(received))
        let parsed = try #require(JSONProbe.parse(document))
        #expect(parsed["version"] == .number("1"))
        #expect(parsed["rule"] == .string(Array("p".utf8)))
        #expect(parsed["edge"] == .string(Array("enter".utf8)))
        #expect(parsed["time"] == .string(Array("2025-01-02T03:04:05Z".utf8)))
        #expect(parsed["facts"]?["ssid"] == .string(ssid))
        #expect(parsed["facts_hex"]?["ssid"] == .string(Array("220aff2428".utf8)))
        #expect(parsed["options"]?["message"] == .string(Array("joined ".utf8) + ssid))
        #expect(parsed["options"]?["urgent"] == .bool(true))
        #expect(results.first?.output == "stdout: record \"\\n\\xff$(")
    }

    @Test func aMissingPluginFailsTheAction() async {
        let harness = RunnerHarness(pluginDirectories: ["/nonexistent"])
        let action = PluginAction(name: "nowhere", options: .null, executablePath: nil)
        await harness.runner.submit(Fixtures.firing(actions: [ActionSpec(action)]), wallTime: "t")
        let results = await harness.settledResults(expecting: 1)
        guard case .failed(let error) = results.first?.outcome else {
            Issue.record("a missing plugin succeeded"); return
        }
        #expect(error.code == .pluginNotFound)
    }

    @Test func aPluginTimeoutKillsItsGroup() async {
        let harness = RunnerHarness()
        let plugins = harness.directory.file("plugins")
        makePlugin(plugins, name: "slow", script: "sleep 30")
        let action = PluginAction(
            name: "slow", options: .null, timeout: .milliseconds(200), executablePath: plugins + "/netrules-action-slow"
        )
        await harness.runner.submit(Fixtures.firing(actions: [ActionSpec(action)]), wallTime: "t")
        let results = await harness.settledResults(expecting: 1)
        guard case .failed(let error) = results.first?.outcome else { Issue.record("a hung plugin succeeded"); return }
        #expect(error.code == .timedOut)
    }

    @Test func theShippedExamplePluginRuns() async throws {
        // Tests/NetRulesActionsTests/PluginTests.swift → the repository root.
        let root = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        let examples = "/" + root + "/examples/plugins"
        let path = try #require(ActionCatalog.findPlugin(named: "notify", directories: [examples], path: nil))
        // A PATH with `cat` only: the plugin's fallback path, without jq or notify-send.
        let bin = TemporaryDirectory()
        symlink("/bin/cat", bin.file("cat"))
        let harness = RunnerHarness(environment: ["PATH": bin.path])
        let action = PluginAction(
            name: "notify", options: .object([ConfigMember("title", .string("At {{ssid}}"))]), executablePath: path)
        await harness.runner.submit(
            Fixtures.firing(rule: "office", facts: [.ssid: "Office"], actions: [ActionSpec(action)]), wallTime: "t")
        let result = try #require(await harness.settledResults(expecting: 1).first)
        #expect(result.isSuccess, "\(result)")
        #expect(result.output == "stdout: netrules: office enter: SSID: Office")
    }
}
