import Foundation

/// A certificate authority the test makes with the `openssl` command, and server certificates
/// it signs, so a client can verify a chain against a `ca_file` instead of the system's CAs.
package struct TestCertificateAuthority: Sendable {
    /// The CA's certificate (PEM): the file to trust.
    package let certificatePath: String
    private let keyPath: String
    private let directory: String

    /// Makes an EC P-256 CA named `name` in `directory`.
    package init(_ name: String, in directory: String) throws {
        self.directory = directory
        keyPath = "\(directory)/\(name)-ca.key"
        certificatePath = "\(directory)/\(name)-ca.pem"
        try TestNamespace.shell(
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            keyPath, "-out", certificatePath, "-days", "30", "-subj", "/CN=\(name) test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    }

    /// Signs a new key's certificate for `commonName`, valid for the names and addresses in
    /// `subjectAltNames` (`DNS:localhost`, `IP:127.0.0.1`).
    package func issue(_ name: String, commonName: String, subjectAltNames: [String]) throws -> TestCertificate {
        let key = "\(directory)/\(name).key"
        let request = "\(directory)/\(name).csr"
        let certificate = "\(directory)/\(name).pem"
        let extensions = "\(directory)/\(name).ext"
        try "subjectAltName=\(subjectAltNames.joined(separator: ","))\n".write(
            toFile: extensions, atomically: true, encoding: .utf8)
        try TestNamespace.shell(
            "openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
            "-out", request, "-subj", "/CN=\(commonName)")
        try TestNamespace.shell(
            "openssl", "x509", "-req", "-in", request, "-CA", certificatePath, "-CAkey", keyPath, "-CAcreateserial",
            "-out", certificate, "-days", "30", "-extfile", extensions)
        return TestCertificate(keyPath: key, certificatePath: certificate)
    }
}
