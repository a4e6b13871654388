#include "CCrypto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// The libcrypto functions netrules calls, resolved once. Opaque OpenSSL types are `void *` here:
// only these signatures are relied on, all stable across OpenSSL 1.1 and 3.
static struct {
    void *(*bio_new_mem_buf)(const void *, int);
    void *(*bio_new)(const void *);
    const void *(*bio_s_mem)(void);
    int (*bio_free)(void *);
    long (*bio_ctrl)(void *, int, long, void *);
    void *(*pem_read_bio_x509)(void *, void **, void *, void *);
    void (*x509_free)(void *);
    void *(*x509_get_x509_pubkey)(const void *);
    int (*i2d_x509_pubkey)(const void *, unsigned char **);
    void (*crypto_free)(void *, const char *, int);
    unsigned char *(*sha256)(const unsigned char *, size_t, unsigned char *);
    void *(*x509_get_subject_name)(const void *);
    void *(*x509_get_issuer_name)(const void *);
    int (*x509_name_print_ex)(void *, const void *, int, unsigned long);
    const void *(*x509_get0_notafter)(const void *);
    int (*asn1_time_print)(void *, const void *);
} crypto;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static int loaded;

#define RESOLVE(field, name)                                                                  \
    do {                                                                                      \
        *(void **)(&crypto.field) = dlsym(library, name);                                     \
        if (crypto.field == NULL) {                                                           \
            snprintf(failure, sizeof failure, "libcrypto.so.3 lacks %s", name);               \
            return;                                                                           \
        }                                                                                     \
    } while (0)

static void load_once(void) {
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "cannot load libcrypto (install the libssl3 package): %s",
                 reason ? reason : "unknown error");
        return;
    }
    RESOLVE(bio_new_mem_buf, "BIO_new_mem_buf");
    RESOLVE(bio_new, "BIO_new");
    RESOLVE(bio_s_mem, "BIO_s_mem");
    RESOLVE(bio_free, "BIO_free");
    RESOLVE(bio_ctrl, "BIO_ctrl");
    RESOLVE(pem_read_bio_x509, "PEM_read_bio_X509");
    RESOLVE(x509_free, "X509_free");
    RESOLVE(x509_get_x509_pubkey, "X509_get_X509_PUBKEY");
    RESOLVE(i2d_x509_pubkey, "i2d_X509_PUBKEY");
    RESOLVE(crypto_free, "CRYPTO_free");
    RESOLVE(sha256, "SHA256");
    RESOLVE(x509_get_subject_name, "X509_get_subject_name");
    RESOLVE(x509_get_issuer_name, "X509_get_issuer_name");
    RESOLVE(x509_name_print_ex, "X509_NAME_print_ex");
    RESOLVE(x509_get0_notafter, "X509_get0_notAfter");
    RESOLVE(asn1_time_print, "ASN1_TIME_print");
    loaded = 1;
}

// BIO_CTRL_INFO is what the BIO_get_mem_data macro sends (openssl/bio.h).
#define NETRULES_BIO_CTRL_INFO 3
// XN_FLAG_ONELINE (openssl/x509.h): "CN = a, O = b", the form `openssl x509 -subject` prints.
#define NETRULES_XN_FLAG_ONELINE 0x82031fUL

// Copies what a memory BIO holds into `out` as a NUL-terminated string, and frees the BIO.
static void take_text(void *bio, char *out, size_t size) {
    char *data = NULL;
    long length = crypto.bio_ctrl(bio, NETRULES_BIO_CTRL_INFO, 0, &data);
    if (length < 0 || data == NULL) length = 0;
    if ((size_t)length >= size) length = (long)size - 1;
    memcpy(out, data, (size_t)length);
    out[length] = 0;
    crypto.bio_free(bio);
}

int netrules_crypto_read_certificate(const char *pem, size_t length, unsigned char *sha256, char *subject,
                                     char *issuer, char *not_after, char *message, size_t text_size) {
    pthread_once(&once, load_once);
    if (!loaded) {
        snprintf(message, text_size, "%s", failure);
        return -1;
    }
    if (length > 1 << 20) {
        snprintf(message, text_size, "the certificate text is larger than 1 MiB");
        return -1;
    }
    void *in = crypto.bio_new_mem_buf(pem, (int)length);
    if (in == NULL) {
        snprintf(message, text_size, "out of memory");
        return -1;
    }
    void *certificate = crypto.pem_read_bio_x509(in, NULL, NULL, NULL);
    crypto.bio_free(in);
    if (certificate == NULL) {
        snprintf(message, text_size, "no PEM certificate ('-----BEGIN CERTIFICATE-----') could be read");
        return -1;
    }
    unsigned char *der = NULL;
    int size = crypto.i2d_x509_pubkey(crypto.x509_get_x509_pubkey(certificate), &der);
    if (size <= 0 || der == NULL) {
        crypto.x509_free(certificate);
        snprintf(message, text_size, "the certificate's public key cannot be encoded");
        return -1;
    }
    crypto.sha256(der, (size_t)size, sha256);
    crypto.crypto_free(der, __FILE__, __LINE__);
    void *bio = crypto.bio_new(crypto.bio_s_mem());
    if (bio != NULL) {
        crypto.x509_name_print_ex(bio, crypto.x509_get_subject_name(certificate), 0, NETRULES_XN_FLAG_ONELINE);
        take_text(bio, subject, text_size);
    }
    bio = crypto.bio_new(crypto.bio_s_mem());
    if (bio != NULL) {
        crypto.x509_name_print_ex(bio, crypto.x509_get_issuer_name(certificate), 0, NETRULES_XN_FLAG_ONELINE);
        take_text(bio, issuer, text_size);
    }
    bio = crypto.bio_new(crypto.bio_s_mem());
    if (bio != NULL) {
        crypto.asn1_time_print(bio, crypto.x509_get0_notafter(certificate));
        take_text(bio, not_after, text_size);
    }
    crypto.x509_free(certificate);
    return 0;
}
