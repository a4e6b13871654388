#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// The libcurl functions netrules calls, resolved once by netrules_curl_load. Debian's libcurl4
// (OpenSSL) and libcurl3-gnutls both export these names; the soname of libcurl4 is libcurl.so.4.
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    void (*easy_reset)(CURL *);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
    CURLSHcode (*share_cleanup)(CURLSH *);
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static int loaded;

#define RESOLVE(field, name)                                                                  \
    do {                                                                                      \
        *(void **)(&curl.field) = dlsym(library, name);                                       \
        if (curl.field == NULL) {                                                             \
            snprintf(failure, sizeof failure, "libcurl.so.4 lacks %s", name);                 \
            return;                                                                           \
        }                                                                                     \
    } while (0)

static void load_once(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "cannot load libcurl (install the libcurl4 package): %s",
                 reason ? reason : "unknown error");
        return;
    }
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_perform, "curl_easy_perform");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    RESOLVE(easy_reset, "curl_easy_reset");
    RESOLVE(share_init, "curl_share_init");
    RESOLVE(share_setopt, "curl_share_setopt");
    RESOLVE(share_cleanup, "curl_share_cleanup");
    // curl_global_init is not thread-safe in older libcurl; pthread_once runs it exactly once.
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(failure, sizeof failure, "curl_global_init failed: %s", curl.easy_strerror(code));
        return;
    }
    loaded = 1;
}

int netrules_curl_load(char *message, size_t size) {
    pthread_once(&once, load_once);
    if (loaded) return 0;
    if (message != NULL && size > 0) snprintf(message, size, "%s", failure);
    return -1;
}

int netrules_curl_is_loaded(void) { return loaded; }

CURL *netrules_curl_easy_init(void) { return curl.easy_init(); }
void netrules_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
CURLcode netrules_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *netrules_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
void netrules_curl_easy_reset(CURL *handle) { curl.easy_reset(handle); }

struct netrules_curl_share {
    CURLSH *handle;
    // One mutex per kind of shared data (curl_lock_data), as curl_share_setopt(3) asks of
    // threaded use: a DNS lookup need not wait for a TLS session being stored.
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *context) {
    (void)handle;
    (void)access;
    struct netrules_curl_share *share = context;
    if ((unsigned)data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&share->locks[data]);
}

static void share_unlock(CURL *handle, curl_lock_data data, void *context) {
    (void)handle;
    struct netrules_curl_share *share = context;
    if ((unsigned)data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&share->locks[data]);
}

struct netrules_curl_share *netrules_curl_share_create(void) {
    struct netrules_curl_share *share = calloc(1, sizeof *share);
    if (share == NULL) return NULL;
    share->handle = curl.share_init();
    if (share->handle == NULL) {
        free(share);
        return NULL;
    }
    for (int kind = 0; kind < CURL_LOCK_DATA_LAST; kind++) pthread_mutex_init(&share->locks[kind], NULL);
    int failed = curl.share_setopt(share->handle, CURLSHOPT_USERDATA, share) != CURLSHE_OK ||
                 curl.share_setopt(share->handle, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
                 curl.share_setopt(share->handle, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
                 curl.share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
                 curl.share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK;
    if (failed) {
        netrules_curl_share_free(share);
        return NULL;
    }
    return share;
}

void netrules_curl_share_free(struct netrules_curl_share *share) {
    if (share == NULL) return;
    curl.share_cleanup(share->handle);
    for (int kind = 0; kind < CURL_LOCK_DATA_LAST; kind++) pthread_mutex_destroy(&share->locks[kind]);
    free(share);
}

CURLcode netrules_curl_setopt_share(CURL *handle, struct netrules_curl_share *share) {
    return curl.easy_setopt(handle, CURLOPT_SHARE, share ? share->handle : NULL);
}

struct curl_slist *netrules_curl_slist_append(struct curl_slist *list, const char *line) {
    return curl.slist_append(list, line);
}

void netrules_curl_slist_free_all(struct curl_slist *list) {
    if (loaded) curl.slist_free_all(list);
}

CURLcode netrules_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode netrules_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode netrules_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode netrules_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode netrules_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode netrules_curl_setopt_write_callback(CURL *handle, curl_write_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode netrules_curl_setopt_header_callback(CURL *handle, curl_write_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

CURLcode netrules_curl_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode netrules_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode netrules_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode netrules_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl.easy_getinfo(handle, info, (char **)value);
}

CURLcode netrules_curl_getinfo_certinfo(CURL *handle, struct curl_certinfo **value) {
    return curl.easy_getinfo(handle, CURLINFO_CERTINFO, value);
}
