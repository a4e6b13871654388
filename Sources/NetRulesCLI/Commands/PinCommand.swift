import NetRulesCore
import NetRulesHTTP
internal import NetRulesSystem

/// `netrules pin HOST[:PORT] | --cert FILE.pem`: the `sha256//…` pin of a server's key, for `verify:`.
enum PinCommand: Command {
    static let spec = CommandSpec(
        name: "pin",
        abstract: "Print the sha256// pin of the key a TLS server presents, for a place's 'verify:'.",
        discussion: """
            Makes one TLS handshake to HOST (port 443 unless given; an https:// URL works too) and prints \
            the SHA-256 of the certificate's public key in curl's sha256// form, the only line on standard \
            output; the certificate's subject, issuer and expiry go to standard error, to check before \
            trusting it. No request is sent and the certificate is not verified: run it on the network you \
            trust. With --cert, reads a PEM certificate instead.
            """,
        arguments: [ArgumentSpec(name: "host", help: "HOST, HOST:PORT or an https:// URL.", isOptional: true)],
        options: [
            OptionSpec(long: "cert", valueName: "file", help: "A PEM certificate file to pin instead of a server."),
            OptionSpec(long: "timeout", valueName: "seconds", help: "The handshake's timeout.", defaultValue: "3"),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let host = arguments.positional("host").first
        let summary: CertificateSummary
        switch (host, arguments.value("cert")) {
        case (nil, nil), (.some, .some):
            io.printError("Error: give either HOST[:PORT] or --cert FILE.pem")
            io.printError("Usage: netrules pin HOST[:PORT] | --cert FILE.pem")
            return ExitCode.usage
        case (nil, let file?):
            guard let bytes = FileContents.readRegularFile(file) else {
                throw CommandError.noInput("cannot read '\(file)': no such file or permission denied")
            }
            do {
                summary = try CertificateSummary.read(pem: bytes)
            } catch {
                throw CommandError.runtime("\(file): \(error.message)")
            }
        case (let text?, nil):
            let timeout = try PingSubcommand.seconds(
                arguments.value("timeout") ?? "3", option: "--timeout", arguments)
            guard let (name, port) = target(text) else {
                io.printError("Error: '\(text)' is not HOST, HOST:PORT or an https:// URL")
                return ExitCode.usage
            }
            switch await TLSHandshake(host: name, port: port, timeout: timeout).perform() {
            case .completed(let presented?), .mismatch(let presented?):
                summary = presented
            case .completed(nil), .mismatch(nil):
                throw CommandError.runtime("\(text): the server presented no certificate netrules could read")
            case .failed(let error):
                throw CommandError.runtime(failure(text, host: name, error))
            }
        }
        io.stdout.write(summary.pin + "\n")
        io.stderr.write(
            "subject: \(JSONValue.string(summary.subject).plainText)\n"
                + "issuer:  \(JSONValue.string(summary.issuer).plainText)\n"
                + "expires: \(summary.notAfter)\n")
        return ExitCode.success
    }

    /// Why no certificate came back, in plain words where the cause is a common one: a name that
    /// does not resolve is said so, not as curl's "could not resolve: Could not resolve host".
    static func failure(_ text: String, host: String, _ error: HTTPError) -> String {
        switch error.code {
        case .couldNotResolve:
            "\(text): the name '\(host)' does not resolve: this system's DNS has no address for it; "
                + "check the spelling, or give the server's address"
        default: "\(text): \(error)"
        }
    }

    /// `HOST`, `HOST:PORT`, `[V6]:PORT` or `https://HOST[:PORT][/]`.
    static func target(_ text: String) -> (String, Int)? {
        var rest = Substring(text)
        if rest.hasPrefix("https://") {
            rest = rest.dropFirst("https://".count)
            if rest.hasSuffix("/") { rest = rest.dropLast() }
        }
        guard let host = HostDefinition(inline: String(rest)) else { return nil }
        return (host.address, host.port ?? 443)
    }
}
