#ifndef NETRULES_CCURL_H
#define NETRULES_CCURL_H
// libcurl, loaded with dlopen(3) the first time a request is made, so a daemon whose rules send no
// webhook and probe no portal never maps libcurl and its TLS, LDAP, SSH and Kerberos libraries
// (about 30 shared objects). curl.h gives the types and constants; every function of libcurl that
// netrules calls is reached through one of the netrules_curl_* functions below, never directly,
// so the binary has no link-time dependency on libcurl.

#include <stddef.h>
#include <curl/curl.h>

// Loads libcurl.so.4, resolves every function below and runs curl_global_init once; safe to call
// from several threads (pthread_once). Returns 0 when libcurl is usable; otherwise -1 and, in
// `message` (at most `size` bytes, NUL-terminated), what failed.
int netrules_curl_load(char *message, size_t size);

// Whether netrules_curl_load has succeeded in this process (for tests and `netrules-bench idle`).
int netrules_curl_is_loaded(void);

CURL *netrules_curl_easy_init(void);
void netrules_curl_easy_cleanup(CURL *handle);
CURLcode netrules_curl_easy_perform(CURL *handle);
const char *netrules_curl_easy_strerror(CURLcode code);
struct curl_slist *netrules_curl_slist_append(struct curl_slist *list, const char *line);
void netrules_curl_slist_free_all(struct curl_slist *list);

// curl_easy_reset(3): every option back to its default, while the handle keeps its live
// connections, TLS session cache, DNS cache and share; how a pooled handle starts its next transfer.
void netrules_curl_easy_reset(CURL *handle);

// A curl share handle (curl_share_init(3)) sharing the DNS cache and TLS sessions
// (CURL_LOCK_DATA_DNS, CURL_LOCK_DATA_SSL_SESSION) between easy handles on any threads, with a
// pthread mutex per curl_lock_data as its lock and unlock callbacks. Not the connection cache:
// CURLSHOPT_SHARE(3) says "it is not supported to share connections between multiple concurrent
// threads" (KNOWN_BUGS 11.11 in libcurl 7.88); connections stay in each easy handle.
struct netrules_curl_share;

// A new share, or NULL when curl_share_init or curl_share_setopt failed.
struct netrules_curl_share *netrules_curl_share_create(void);

// curl_share_cleanup(3) and the mutexes; only once no easy handle uses the share any more.
void netrules_curl_share_free(struct netrules_curl_share *share);

// CURLOPT_SHARE with the share's handle (NULL detaches).
CURLcode netrules_curl_setopt_share(CURL *handle, struct netrules_curl_share *share);

// Swift cannot call C variadic functions, and `curl_easy_setopt` / `curl_easy_getinfo` are
// variadic: the type of the third argument depends on the option. Each wrapper below fixes
// that type, so Swift sees an ordinary typed function and the compiler checks what we pass.
// Which wrapper goes with which option is documented per option in curl_easy_setopt(3).

// For CURLOPTTYPE_LONG options (timeouts, flags such as CURLOPT_NOSIGNAL).
CURLcode netrules_curl_setopt_long(CURL *handle, CURLoption option, long value);

// For CURLOPTTYPE_OFF_T options (CURLOPT_POSTFIELDSIZE_LARGE): curl_off_t is not `long` on
// every platform, so it gets its own wrapper rather than a cast at the call site.
CURLcode netrules_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);

// For CURLOPTTYPE_STRINGPOINT options (URL, interface, protocols). libcurl copies the string
// (since 7.17.0) except for CURLOPT_POSTFIELDS, which we never use (CURLOPT_COPYPOSTFIELDS
// copies).
CURLcode netrules_curl_setopt_string(CURL *handle, CURLoption option, const char *value);

// For CURLOPTTYPE_OBJECTPOINT options that take opaque data: callback user data and the
// error buffer (CURLOPT_ERRORBUFFER, CURL_ERROR_SIZE bytes that must outlive the transfer).
CURLcode netrules_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);

// For CURLOPTTYPE_SLISTPOINT options (CURLOPT_HTTPHEADER): the list must outlive the transfer.
CURLcode netrules_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

// CURLOPT_WRITEFUNCTION: receives the body. A function pointer is not a data pointer in C, so
// it cannot go through the `void *` wrapper.
CURLcode netrules_curl_setopt_write_callback(CURL *handle, curl_write_callback callback);

// CURLOPT_HEADERFUNCTION: receives each header line, with the same signature as the body callback.
CURLcode netrules_curl_setopt_header_callback(CURL *handle, curl_write_callback callback);

// CURLOPT_XFERINFOFUNCTION: called at least once a second during a transfer; returning
// non-zero aborts it, which is how a cancelled Swift task stops a blocking curl_easy_perform.
CURLcode netrules_curl_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback callback);

// CURLINFO_LONG items (CURLINFO_RESPONSE_CODE).
CURLcode netrules_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

// CURLINFO_DOUBLE items (CURLINFO_TOTAL_TIME and the other timings, in seconds).
CURLcode netrules_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);

// CURLINFO_STRING items (CURLINFO_REDIRECT_URL). The string belongs to the handle and is
// valid until the handle is cleaned up or reused, so Swift copies it at once.
CURLcode netrules_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value);

// CURLINFO_CERTINFO (with CURLOPT_CERTINFO set): the server's certificate chain as curl saw it
// during the handshake, leaf first; each entry a list of "Name:value" lines, one of them
// "Cert:" with the PEM text. Owned by the handle, like the strings above.
CURLcode netrules_curl_getinfo_certinfo(CURL *handle, struct curl_certinfo **value);

#endif
