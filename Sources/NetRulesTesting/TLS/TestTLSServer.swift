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

/// A TLS server (python3's `ssl`) with one certificate, in a namespace or on this host's loopback;
/// `stop()` kills it.
///
/// Without `forwardingTo` it completes handshakes and closes (what probes and pins need). With a
/// port it terminates TLS in front of `TestHTTPServer` on 127.0.0.1 at that port, relaying the
/// bytes both ways, so an HTTPS test has the tests' one HTTP server behind it: a client that gave
/// up during the handshake (a pin mismatch) never reaches it.
package final class TestTLSServer: Sendable {
    private let process: Process
    package let address: String
    /// The port it listens on (the kernel's choice when it was asked for 0).
    package let port: Int

    private static let script = """
        import select, socket, ssl, sys, threading
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        upstream = int(sys.argv[5])
        listener = socket.create_server((sys.argv[1], int(sys.argv[2])), reuse_port=True)
        print("ready %d" % listener.getsockname()[1], flush=True)
        def relay(tls, plain):
            # One thread per connection reads and writes both sides: an SSL socket is not shared.
            while True:
                ready = [tls] if tls.pending() else select.select([tls, plain], [], [], 10)[0]
                if not ready:
                    return
                for source, sink in ((tls, plain), (plain, tls)):
                    if source in ready:
                        data = source.recv(65536)
                        if not data:
                            return
                        sink.sendall(data)
        def serve(connection):
            try:
                with context.wrap_socket(connection, server_side=True) as tls:
                    tls.settimeout(2)
                    if upstream:
                        with socket.create_connection(("127.0.0.1", upstream)) as plain:
                            relay(tls, plain)
                    else:
                        try:
                            tls.recv(1)
                        except Exception:
                            pass
            except Exception:
                connection.close()
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """

    /// Starts serving `certificate` on `address:port` (0: a port the kernel picks), inside
    /// `namespace` or, when nil, on this host, and waits until it listens.
    /// - Parameter upstream: the port of a `TestHTTPServer` on 127.0.0.1 to relay to, or nil to
    ///   close each connection after its handshake.
    package init(
        _ certificate: TestCertificate, address: String, port: Int, in namespace: TestNamespace?,
        forwardingTo upstream: UInt16? = nil
    ) throws {
        self.address = address
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            (namespace.map { ["ip", "netns", "exec", $0.name] } ?? []) + [
                "python3", "-c", Self.script, address, String(port), certificate.certificatePath,
                certificate.keyPath, String(upstream ?? 0),
            ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // One line, "ready PORT", once the socket listens; nothing (EOF) if python failed.
        let line = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("ready "), let listening = Int(line.dropFirst(6).prefix { $0.isNumber }) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            throw TestError("the TLS server on \(address):\(port) did not start")
        }
        self.port = listening
    }

    /// `https://ADDRESS:PORT` followed by `path`.
    package func url(_ path: String) -> String { "https://\(address):\(port)\(path)" }

    /// Kills the server and waits for it.
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }
}
