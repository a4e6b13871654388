import Foundation
@preconcurrency import Glibc

/// A self-signed key and certificate made by the test with the `openssl` command.
package struct TestCertificate: Sendable {
    /// The PEM files.
    package let keyPath: String
    package let certificatePath: String

    /// Names an existing key and certificate.
    package init(keyPath: String, certificatePath: String) {
        self.keyPath = keyPath
        self.certificatePath = certificatePath
    }

    /// Makes an EC P-256 key and a self-signed certificate for `commonName` in `directory`, under `name`.
    package init(_ name: String, commonName: String, in directory: String) throws {
        keyPath = "\(directory)/\(name).key"
        certificatePath = "\(directory)/\(name).pem"
        try TestNamespace.shell(
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            keyPath, "-out", certificatePath, "-days", "30", "-subj", "/CN=\(commonName)")
    }

    /// The pin by the recipe of the tls-pinning note:
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64`.
    package var opensslPin: String {
        get throws {
            let script =
                "openssl x509 -in '\(certificatePath)' -pubkey -noout | openssl pkey -pubin -outform DER"
                + " | openssl dgst -sha256 -binary | base64"
            let output = try TestNamespace.shell("sh", "-c", script)
            return "sha256//" + output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

/// A TLS server (python3's `ssl`) in a namespace that completes handshakes with one certificate
/// and closes; `stop()` kills it.
package final class TestTLSServer: Sendable {
    private let process: Process
    package let address: String
    package let port: Int

    private static let script = """
        import socket, ssl, sys
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        listener = socket.create_server((sys.argv[1], int(sys.argv[2])), reuse_port=True)
        print("ready", flush=True)
        while True:
            connection, _ = listener.accept()
            try:
                with context.wrap_socket(connection, server_side=True) as tls:
                    tls.settimeout(2)
                    try:
                        tls.recv(1)
                    except Exception:
                        pass
            except Exception:
                connection.close()
        """

    /// Starts serving `certificate` on `address:port` inside `namespace` and waits until it listens.
    package init(_ certificate: TestCertificate, address: String, port: Int, in namespace: TestNamespace) throws {
        self.address = address
        self.port = port
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "ip", "netns", "exec", namespace.name, "python3", "-c", Self.script, address, String(port),
            certificate.certificatePath, certificate.keyPath,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // One line, "ready", once the socket listens; nothing (EOF) if python failed.
        let line = pipe.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).hasPrefix("ready") else {
            stop()
            throw TestError("the TLS server on \(address):\(port) did not start")
        }
    }

    /// Kills the server and waits for it.
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }
}
