#ifndef NETRULES_CCRYPTO_H
#define NETRULES_CCRYPTO_H
// OpenSSL's libcrypto, loaded with dlopen(3) the first time a certificate is read, for what a
// pin needs and libcurl does not expose: the SHA-256 of a certificate's SubjectPublicKeyInfo
// (the pin a server presented, for a mismatch's reason and `netrules pin`), and its subject,
// issuer and expiry. libcurl4 (the OpenSSL flavour) maps the same libcrypto.so.3 already. No
// X.509 is parsed here: OpenSSL's PEM and DER codecs do it.

#include <stddef.h>

// Reads the first certificate of `pem` (`length` bytes of PEM text) and writes the SHA-256 of
// its DER SubjectPublicKeyInfo into `sha256` (32 bytes), and NUL-terminated one-line texts of its
// subject, issuer and notAfter (each at most `text_size` bytes, truncated to fit). Returns 0; -1
// with `message` (NUL-terminated, at most `text_size` bytes) saying why when libcrypto cannot be
// loaded or the text holds no certificate.
int netrules_crypto_read_certificate(const char *pem, size_t length, unsigned char *sha256, char *subject,
                                     char *issuer, char *not_after, char *message, size_t text_size);

#endif
