import NetRulesCore
import NetRulesSystem
import NetRulesTesting
import Testing

@testable import NetRulesActions

/// An action that reads `{{env.NAME}}` while NAME is unset or empty fails before it starts: no
/// request, no process, no file, and a message saying which variable and where it comes from.
@Suite(.timeLimit(.minutes(2)))
struct MissingSecretTests {
    static let tail =
        "(set it in the file the systemd unit's EnvironmentFile= names, /etc/netrules/environment, and restart netrules)"

    private func failure(_ result: ActionResult?) -> ActionError? {
        guard case .failed(let error)? = result?.outcome else { return nil }
        return error
    }

    @Test func aWebhookWithAnUnsetSecretSendsNothingAndIsNotRetried() async throws {
        let server = try TestHTTPServer { _ in .response(status: 200, reason: "OK") }
        defer { server.stop() }
        let harness = RunnerHarness(environment: ["PATH": "/usr/bin:/bin"])
        let webhook = WebhookAction(
            url: Fixtures.template(server.url("/check-in")),
            headers: [(name: "Authorization", value: Fixtures.template("Bearer {{env.TOKEN}}"))],
            attempts: 5, backoff: .milliseconds(10))
        let marker = harness.directory.file("after")
        await harness.runner.submit(
            Fixtures.firing(actions: [ActionSpec(webhook), RunnerHarness.append(marker, "ran")]), wallTime: "t")
        let results = await harness.settledResults(expecting: 2)
        let error = try #require(failure(results.first), "\(results)")
        #expect(error.code == .missingSecret)
        #expect(error.message == "{{env.TOKEN}} is not set in the daemon's environment; nothing was sent \(Self.tail)")
        #expect(results.first?.attempts == 0)
        #expect(server.requests.isEmpty, "a request was sent: \(server.requests.map(\.path))")
        // Nothing reached the outbox, pending or failed: there is nothing a retry could send.
        let outbox = harness.directory.file("state/outbox")
        let stored = (try? sys_listDirectory(outbox).get(call: "list")) ?? []
        #expect(stored.filter { $0.hasSuffix(".json") }.isEmpty, "\(stored)")
        let failed = (try? sys_listDirectory(outbox + "/failed").get(call: "list")) ?? []
        #expect(failed.isEmpty, "\(failed)")
        // The firing stops there, as after any failure.
        if case .skipped = results.last?.outcome {} else { Issue.record("the next action ran: \(results)") }
        #expect(!Fixtures.exists(marker))
        #expect(harness.log.contains { $0.contains("failed: {{env.TOKEN}} is not set") }, "\(harness.log)")
    }

    @Test func aCommandWithAnEmptySecretIsNotStarted() async throws {
        let harness = RunnerHarness(environment: ["PATH": "/usr/bin:/bin", "TOKEN": "", "OTHER": "x"])
        let marker = harness.directory.file("started")
        await harness.runner.submit(
            Fixtures.firing(actions: [
                RunnerHarness.run("touch \(marker) {{env.TOKEN}} {{env.OTHER}} {{env.MISSING}}")
            ]), wallTime: "t")
        let results = await harness.settledResults(expecting: 1)
        let error = try #require(failure(results.first), "\(results)")
        #expect(
            error.message
                == "{{env.MISSING}} is not set and {{env.TOKEN}} is empty in the daemon's environment; "
                + "the command was not started \(Self.tail)")
        #expect(!Fixtures.exists(marker), "the command ran")
    }

    @Test func aWriteAndAPluginWithAnUnsetSecretDoNothing() async throws {
        let harness = RunnerHarness(environment: ["PATH": "/usr/bin:/bin"])
        let file = harness.directory.file("written")
        let plugin = harness.directory.file("netrules-action-mark")
        let pluginRan = harness.directory.file("plugin-ran")
        Fixtures.writeFile(plugin, Array("#!/bin/sh\ntouch \(pluginRan)\n".utf8), mode: 0o755)
        let write = WriteAction(path: file, content: Fixtures.template("{{env.A}} {{env.B}}"))
        let options = ConfigValue.object([ConfigMember("key", .string("{{env.KEY}}"))])
        await harness.runner.submit(
            Fixtures.firing(actions: [
                ActionSpec(write, continueOnError: true),
                ActionSpec(PluginAction(name: "mark", options: options, executablePath: plugin)),
            ]), wallTime: "t")
        let results = await harness.settledResults(expecting: 2)
        #expect(
            failure(results.first)?.message
                == "{{env.A}} and {{env.B}} are not set in the daemon's environment; nothing was written \(Self.tail)")
        #expect(
            failure(results.last)?.message
                == "{{env.KEY}} is not set in the daemon's environment; the plugin 'mark' was not started \(Self.tail)")
        #expect(!Fixtures.exists(file))
        #expect(!Fixtures.exists(pluginRan))
    }

    @Test func aResumedDeliveryWhoseSecretIsGoneFailsWithoutAnAttempt() async throws {
        let server = try TestHTTPServer { _ in .response(status: 200, reason: "OK") }
        defer { server.stop() }
        let directory = TemporaryDirectory()
        let state = directory.file("state")
        // What an earlier process, which had TOKEN, left in the outbox.
        let webhook = WebhookAction(
            url: Fixtures.template(server.url("/hook") + "?t={{env.TOKEN}}"),
            headers: [(name: "Authorization", value: Fixtures.template("Bearer {{env.TOKEN}}"))])
        let earlier = Fixtures.context(
            Fixtures.firing(actions: [ActionSpec(webhook)]), environment: ["TOKEN": "s3cret-token"])
        let entry = WebhookRendering.entry(for: webhook, in: earlier, actionIndex: 0)
        #expect(entry.environmentNames == ["TOKEN"])
        try Outbox(stateDirectory: state).store(entry)

        let harness = RunnerHarness(environment: ["PATH": "/usr/bin:/bin"], stateDirectory: state)
        await harness.runner.resumeOutbox()
        let results = await harness.settledResults(expecting: 1)
        let error = try #require(failure(results.first), "\(results)")
        #expect(error.code == .missingSecret)
        #expect(
            error.message
                == "webhook POST delivery \(entry.idempotencyKey): {{env.TOKEN}} is not set in the daemon's "
                + "environment; nothing was sent \(Self.tail)")
        #expect(results.first?.attempts == 0)
        #expect(server.requests.isEmpty)
        let failed = try sys_listDirectory(state + "/outbox/failed").get(call: "list")
        #expect(failed == [entry.fileName], "kept in outbox/failed for a person to look at")
    }
}
