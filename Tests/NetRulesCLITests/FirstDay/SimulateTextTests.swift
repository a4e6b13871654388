import Foundation
import Testing

/// What `simulate` shows (issue 24, items 6, 9, 12 and 13), byte for byte against `Golden/first-day/`.
@Suite(.timeLimit(.minutes(2)))
struct SimulateTextTests {
    static let fixtures = FirstDayGolden.directory

    /// Runs the built binary in the fixtures' directory with `TZ` pinned (Central European Time as
    /// a POSIX rule, so no time zone database is needed): local times and `{{time}}` must show
    /// +01:00 in December whatever zone the machine is in.
    static func simulateInBerlin(
        _ arguments: [String], environment extra: [String: String] = [:]
    ) throws -> (code: Int32, stdout: String, stderr: String) {
        let binary = CommandTests.root.appendingPathComponent(".build/debug/netrules")
        try #require(
            FileManager.default.isExecutableFile(atPath: binary.path),
            "build the netrules product first (swift build --build-tests builds it)")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["simulate"] + arguments
        process.currentDirectoryURL = fixtures
        process.environment = ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3", "PATH": "/usr/bin:/bin", "COLUMNS": "80"]
            .merging(extra) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    @Test func traceShowsLocalTimesTheDropsEndAndTheEnvironmentOfARun() throws {
        let r = try Self.simulateInBerlin([
            "portal-notice.rules.yaml", "-t", "portal-notice.timeline.yaml", "--trace",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        #expect(r.stdout.contains("  Tue 07:00:00  portal-notice  enter  run, write\n"))
        #expect(r.stdout.contains("dropped by cooldown until Tue 08:00:00 (1d8h)"))
        #expect(r.stdout.contains("      env NETRULES_EDGE=enter\n"))
        #expect(r.stdout.contains("2026-12-08T07:00:00+01:00 2026-12-08T06:00:00Z Cafe\\n\n"))
        try FirstDayGolden.compare(r.stdout, to: "simulate-trace-berlin.text")
    }

    @Test func jsonCarriesTheLocalTimeAndTheEnvironment() throws {
        let r = try Self.simulateInBerlin(["portal-notice.rules.yaml", "-t", "portal-notice.timeline.yaml", "--json"])
        #expect(r.code == 0, "\(r.stderr)")
        try FirstDayGolden.compare(r.stdout, to: "simulate-berlin.jsonl")
    }

    @Test func everyTimelineProblemIsReportedInOnePassSortedByPosition() async throws {
        let r = await CommandTests.run([
            "simulate", Self.fixtures.appendingPathComponent("portal-notice.rules.yaml").path, "-t",
            Self.fixtures.appendingPathComponent("timeline-problems.timeline.yaml").path,
        ])
        #expect(r.code == 65)
        #expect(r.stdout == "")
        let stderr = r.stderr.replacingOccurrences(of: Self.fixtures.path + "/", with: "")
        let bad = try #require(stderr.range(of: "timeline-problems.timeline.yaml:5:"))
        let typo = try #require(stderr.range(of: "timeline-problems.timeline.yaml:7:"))
        #expect(bad.lowerBound < typo.lowerBound)
        try FirstDayGolden.compare(stderr, to: "timeline-problems.stderr")
    }

    @Test func aBareExecuteIsAUsageErrorThatNamesTheKinds() async throws {
        let r = await CommandTests.run([
            "simulate", Self.fixtures.appendingPathComponent("portal-notice.rules.yaml").path, "-t",
            Self.fixtures.appendingPathComponent("portal-notice.timeline.yaml").path, "--execute",
        ])
        #expect(r.code == 64)
        #expect(r.stdout == "")
        try FirstDayGolden.compare(r.stderr, to: "simulate-execute-bare.stderr")
        let unknown = await CommandTests.run([
            "simulate", Self.fixtures.appendingPathComponent("portal-notice.rules.yaml").path, "-t",
            Self.fixtures.appendingPathComponent("portal-notice.timeline.yaml").path, "--execute", "run,mail",
        ])
        #expect(unknown.code == 64)
        #expect(unknown.stderr.hasPrefix("Error: --execute takes the kinds of action to run for real: "))
    }

    /// `--execute run` runs the `run:` action, leaves the `write:` a preview (its file is never
    /// created), and says so; `{{time}}` in what ran is the real time, not the virtual clock's.
    @Test func executeRunsOnlyTheKindsItNamesAndSaysWhichRan() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nr-execute-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ran = directory.appendingPathComponent("ran").path
        let written = directory.appendingPathComponent("written").path
        let rules = directory.appendingPathComponent("rules.yaml")
        try """
        version: 1
        rules:
          - name: portal-notice
            when: { connectivity: portal }
            do:
              - run: "printf '%s' \\"$NETRULES_TIME_UTC\\" > \(ran)"
              - write: { path: \(written), content: "{{time}}" }
        """.write(to: rules, atomically: true, encoding: .utf8)
        let before = Date()
        let r = await CommandTests.run([
            "simulate", rules.path, "-t", Self.fixtures.appendingPathComponent("portal-notice.timeline.yaml").path,
            "--execute", "run",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("\nexecuted for real: 2 run; previewed only: 2 write (not in --execute run)\n"))
        #expect(!FileManager.default.fileExists(atPath: written))
        let stamp = try String(contentsOfFile: ran, encoding: .utf8)
        // The virtual clock is in December 2026; what ran got the real time (to the second).
        let iso = ISO8601DateFormatter()
        let real = try #require(iso.date(from: stamp), "\(stamp)")
        #expect(real.timeIntervalSince(before) > -2 && real.timeIntervalSinceNow < 2, "\(stamp)")
    }
}
