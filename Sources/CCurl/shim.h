#ifndef NETRULES_CCURL_SHIM_H
#define NETRULES_CCURL_SHIM_H
#include <curl/curl.h>

// Swift cannot call C variadic functions, and `curl_easy_setopt` / `curl_easy_getinfo` are
// variadic: the type of the third argument depends on the option. Each wrapper below fixes
// that type, so Swift sees an ordinary typed function and the compiler checks what we pass.
// Which wrapper goes with which option is documented per option in curl_easy_setopt(3).

// For CURLOPTTYPE_LONG options (timeouts, flags such as CURLOPT_NOSIGNAL).
static inline CURLcode netrules_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

// For CURLOPTTYPE_OFF_T options (CURLOPT_POSTFIELDSIZE_LARGE): curl_off_t is not `long` on
// every platform, so it gets its own wrapper rather than a cast at the call site.
static inline CURLcode netrules_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

// For CURLOPTTYPE_STRINGPOINT options (URL, interface, protocols). libcurl copies the string
// (since 7.17.0) except for CURLOPT_POSTFIELDS, which we never use (CURLOPT_COPYPOSTFIELDS
// copies).
static inline CURLcode netrules_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

// For CURLOPTTYPE_OBJECTPOINT options that take opaque data: callback user data and the
// error buffer (CURLOPT_ERRORBUFFER, CURL_ERROR_SIZE bytes that must outlive the transfer).
static inline CURLcode netrules_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

// For CURLOPTTYPE_SLISTPOINT options (CURLOPT_HTTPHEADER): the list must outlive the transfer.
static inline CURLcode netrules_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

// CURLOPT_WRITEFUNCTION: receives the body. A function pointer is not a data pointer in C, so
// it cannot go through the `void *` wrapper.
static inline CURLcode netrules_curl_setopt_write_callback(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

// CURLOPT_HEADERFUNCTION: receives each header line, with the same signature as the body callback.
static inline CURLcode netrules_curl_setopt_header_callback(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

// CURLOPT_XFERINFOFUNCTION: called at least once a second during a transfer; returning
// non-zero aborts it, which is how a cancelled Swift task stops a blocking curl_easy_perform.
static inline CURLcode netrules_curl_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

// CURLINFO_LONG items (CURLINFO_RESPONSE_CODE).
static inline CURLcode netrules_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

// CURLINFO_DOUBLE items (CURLINFO_TOTAL_TIME and the other timings, in seconds).
static inline CURLcode netrules_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

// CURLINFO_STRING items (CURLINFO_REDIRECT_URL). The string belongs to the handle and is
// valid until the handle is cleaned up or reused, so Swift copies it at once.
static inline CURLcode netrules_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, (char **)value);
}

#endif
