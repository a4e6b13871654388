import Foundation
import NetRulesTesting
import Testing

/// `netrules pin` against the built binary: one line on stdout, equal to the openssl recipe.
@Suite(.timeLimit(.minutes(2)), .enabled(if: Testbed.isAvailable, Testbed.unavailableReason))
struct PinCommandTests {
    /// Runs the binary inside `namespace` and returns its exit status, stdout and stderr.
    static func pin(_ arguments: [String], in namespace: TestNamespace) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", namespace.name, DaemonProcess.executable, "pin"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    @Test func printsThePinOfTheServerAndOfAFileAsOpenSSLDoes() throws {
        let network = try TestNetwork()
        defer { network.delete() }
        let directory = TemporaryDirectory("netrules-pin")
        defer { directory.remove() }
        let certificate = try TestCertificate("nas", commonName: "nas.home.arpa", in: directory.path)
        let expected = try certificate.opensslPin
        let server = try TestTLSServer(certificate, address: TestNetwork.serverAddress, port: 8443, in: network.server)
        defer { server.stop() }

        let (status, stdout, stderr) = try Self.pin(["\(TestNetwork.serverAddress):8443"], in: network.client)
        #expect(status == 0)
        #expect(stdout == expected + "\n")
        #expect(stderr.contains("subject: CN = nas.home.arpa"))
        #expect(stderr.contains("expires: "))

        let url = try Self.pin(["https://\(TestNetwork.serverAddress):8443/"], in: network.client)
        #expect(url.1 == expected + "\n")
        let file = try Self.pin(["--cert", certificate.certificatePath], in: network.client)
        #expect(file.0 == 0)
        #expect(file.1 == expected + "\n")

        let nothing = try Self.pin(["\(TestNetwork.serverAddress):8444"], in: network.client)
        #expect(nothing.0 == 1)
        #expect(nothing.1 == "")
        #expect(try Self.pin([], in: network.client).0 == 64)
    }
}
