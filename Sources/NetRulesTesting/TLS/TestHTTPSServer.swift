import Foundation
@preconcurrency import Glibc

/// An HTTPS server (python3's `http.server` and `ssl`) on loopback that answers every request
/// with 200 and reports the request line and path of each one it received; `stop()` kills it.
///
/// A request appears in ``requests`` only once the TLS handshake completed and the server read
/// it: a client that gave up during the handshake (a pin mismatch) leaves it empty.
package final class TestHTTPSServer: Sendable {
    private let process: Process
    private let logPath: String
    /// The port it listens on, on 127.0.0.1.
    package let port: Int

    private static let script = """
        import http.server, ssl, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                with open(sys.argv[3], "a") as log:
                    log.write(self.command + " " + self.path + "\\n")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
            do_GET = do_POST = do_PUT = answer
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print("port " + str(server.server_address[1]), flush=True)
        server.serve_forever()
        """

    /// Starts serving `certificate` on 127.0.0.1 and waits until it listens; the requests are
    /// logged to a file in `directory`.
    package init(_ certificate: TestCertificate, logIn directory: String) throws {
        logPath = "\(directory)/https-\(UUID().uuidString).log"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, certificate.certificatePath, certificate.keyPath, logPath]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let handle = pipe.fileHandleForReading
        let first = String(decoding: handle.availableData, as: UTF8.self)
        guard first.hasPrefix("port "), let port = Int(first.dropFirst(5).prefix { $0.isNumber }) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            throw TestError("the HTTPS server did not start")
        }
        self.port = port
    }

    /// `https://127.0.0.1:PORT` followed by `path`.
    package func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// The requests received so far, as `METHOD PATH`.
    package var requests: [String] {
        // Dropping is right: no log yet means no request yet.
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Kills the server and waits for it.
    package func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
