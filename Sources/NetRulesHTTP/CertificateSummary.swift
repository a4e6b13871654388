internal import CCrypto
import NetRulesCore

/// What a pin needs to know of a certificate: its pin, and what a person checks before trusting it.
package struct CertificateSummary: Hashable, Sendable {
    /// `sha256//` and the base64 SHA-256 of the DER SubjectPublicKeyInfo, curl's
    /// `CURLOPT_PINNEDPUBLICKEY` form; equal for two certificates of one key.
    package var pin: String
    /// The subject, one line (`CN = nas.home.arpa, O = Home`).
    package var subject: String
    /// The issuer, one line; the subject again for a self-signed certificate.
    package var issuer: String
    /// When it expires, as OpenSSL prints it (`Dec  1 20:00:00 2027 GMT`).
    package var notAfter: String

    /// Reads the first certificate of PEM text, with OpenSSL's libcrypto.
    ///
    /// - Throws: ``HTTPError`` (`.other`) when libcrypto cannot be loaded or the text holds no
    ///   certificate.
    package static func read(pem: [UInt8]) throws(HTTPError) -> CertificateSummary {
        var digest = [UInt8](repeating: 0, count: 32)
        let size = 512
        var subject = [CChar](repeating: 0, count: size)
        var issuer = [CChar](repeating: 0, count: size)
        var notAfter = [CChar](repeating: 0, count: size)
        var message = [CChar](repeating: 0, count: size)
        let status = pem.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                netrules_crypto_read_certificate(
                    text.baseAddress, text.count, &digest, &subject, &issuer, &notAfter, &message, size)
            }
        }
        guard status == 0 else { throw HTTPError(code: .other, message: Self.string(message)) }
        return CertificateSummary(
            pin: "sha256//" + Base64.encode(digest), subject: Self.string(subject), issuer: Self.string(issuer),
            notAfter: Self.string(notAfter))
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
