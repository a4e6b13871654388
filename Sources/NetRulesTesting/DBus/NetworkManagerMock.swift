import Foundation
@preconcurrency import Glibc
import NetRulesSystem

/// python-dbusmock's NetworkManager template on a private `dbus-daemon`, for tests of the
/// NetworkManager observer: the harness GNOME projects test NetworkManager clients with.
///
/// `address` is the bus (`unix:path=…`) to give the observer, or to export as
/// `DBUS_SYSTEM_BUS_ADDRESS` for a `netrules` process. `control` runs `Tests/Support/nm-mock`,
/// which drives the mock as NetworkManager would behave (join, roam, disconnect, VPNs,
/// connectivity). `stopNetworkManager()` takes the name off the bus; `startNetworkManager()`
/// brings a fresh one back. Everything started is killed at `stop()` or deinit.
package final class NetworkManagerMock: @unchecked Sendable {
    // Mutated only by the test that owns the mock, one call at a time.

    /// Whether dbus-daemon and python-dbusmock (Debian python3-dbusmock) are installed.
    package static let isAvailable: Bool =
        access("/usr/bin/dbus-daemon", X_OK) == 0 && access("/usr/bin/python3", X_OK) == 0
        && system("/usr/bin/python3 -c 'import dbusmock' >/dev/null 2>&1") == 0

    package static let unavailableReason =
        "SKIPPED: dbus-daemon or python3-dbusmock is not installed (scripts/setup installs them); the NetworkManager tests did not run"

    package let directory: String
    package let address: String
    private var bus: BackgroundProcess?
    private var mock: BackgroundProcess?

    /// The script that drives the mock.
    static let controlScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Support/nm-mock").path

    /// Starts the bus and NetworkManager's mock with a Wi-Fi device (`nm-mock setup`).
    package init() throws {
        directory = "/tmp/nr-nm-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let socket = directory + "/bus"
        address = "unix:path=" + socket
        bus = try Self.spawn(
            ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"], environment: [:])
        for _ in 0..<100 where access(socket, F_OK) != 0 { usleep(20_000) }
        guard access(socket, F_OK) == 0 else { throw MockError("dbus-daemon did not create \(socket)") }
        try startNetworkManager()
    }

    deinit { stop() }

    /// NetworkManager (the mock) joins the bus with a Wi-Fi device and nothing connected.
    package func startNetworkManager() throws {
        mock = try Self.spawn(
            ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "networkmanager"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": address], output: directory + "/mock.log")
        for _ in 0..<250 {
            if system(
                "\(Self.environment(address)) /usr/bin/dbus-send --system --print-reply --dest=org.freedesktop.NetworkManager /org/freedesktop/NetworkManager org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1"
            ) == 0 {
                return try control("setup")
            }
            usleep(20_000)
        }
        throw MockError("the NetworkManager mock did not come up; see \(directory)/mock.log")
    }

    /// NetworkManager leaves the bus.
    package func stopNetworkManager() {
        resumeNetworkManager()
        mock?.kill()
        mock = nil
    }

    /// NetworkManager stops answering (SIGSTOP): its name stays on the bus, and every call to it
    /// waits for the caller's timeout, as with a hung NetworkManager.
    package func pauseNetworkManager() {
        if let mock { _ = sys_kill(mock.pid, SIGSTOP) }
    }

    /// NetworkManager answers again (SIGCONT).
    package func resumeNetworkManager() {
        if let mock { _ = sys_kill(mock.pid, SIGCONT) }
    }

    /// Runs `nm-mock ARGUMENTS…` against this bus.
    package func control(_ arguments: String...) throws {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(
            separator: " ")
        let status = system(
            "\(Self.environment(address)) \(Self.controlScript) \(quoted) >> \(directory)/control.log 2>&1")
        guard status == 0 else {
            // The error thrown below already says the command failed; the log only adds its output.
            let log = (try? String(contentsOfFile: directory + "/control.log", encoding: .utf8)) ?? ""
            throw MockError("nm-mock \(arguments.joined(separator: " ")) failed:\n\(log.suffix(2000))")
        }
    }

    /// Kills the mock and the bus and removes the directory.
    package func stop() {
        stopNetworkManager()
        bus?.kill()
        bus = nil
        // A test's clean-up; what cannot be removed stays under /tmp and never changes a result.
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func environment(_ address: String) -> String { "DBUS_SYSTEM_BUS_ADDRESS='\(address)'" }

    private static func spawn(_ argv: [String], environment: [String: String], output: String = "/dev/null") throws
        -> BackgroundProcess
    {
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        do {
            return try BackgroundProcess(
                argv, environment: env.map { "\($0.key)=\($0.value)" }, log: output, logMode: 0o644)
        } catch {
            throw MockError("cannot start \(argv[0]): \(error)")
        }
    }
}

struct MockError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
