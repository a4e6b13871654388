#include "CSystemd.h"
#include "library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>

// sd-login's functions, resolved once from the module's one libsystemd handle (library.h, which
// loader.c's sd-bus functions come from too), with the prototypes of sd-login.h.
static struct {
    int (*get_sessions)(char ***sessions);
    int (*session_get_uid)(const char *session, uid_t *uid);
    int (*session_is_active)(const char *session);
    int (*session_is_remote)(const char *session);
    int (*session_get_type)(const char *session, char **type);
    int (*session_get_class)(const char *session, char **clazz);
    int (*session_get_seat)(const char *session, char **seat);
} login;

static pthread_once_t login_once = PTHREAD_ONCE_INIT;
static char login_failure[256];
static int login_loaded;

#define RESOLVE(field, symbol)                                                                   \
    do {                                                                                         \
        *(void **)(&login.field) = dlsym(library, symbol);                                      \
        if (login.field == NULL) {                                                               \
            snprintf(login_failure, sizeof login_failure, "libsystemd.so.0 lacks %s", symbol); \
            return;                                                                              \
        }                                                                                        \
    } while (0)

static void login_load_once(void) {
    const char *reason = NULL;
    void *library = netrules_sd_library(&reason);
    if (library == NULL) {
        snprintf(login_failure, sizeof login_failure, "%s", reason);
        return;
    }
    RESOLVE(get_sessions, "sd_get_sessions");
    RESOLVE(session_get_uid, "sd_session_get_uid");
    RESOLVE(session_is_active, "sd_session_is_active");
    RESOLVE(session_is_remote, "sd_session_is_remote");
    RESOLVE(session_get_type, "sd_session_get_type");
    RESOLVE(session_get_class, "sd_session_get_class");
    RESOLVE(session_get_seat, "sd_session_get_seat");
    login_loaded = 1;
}

// Copies a string sd-login allocated into `field` (cut to fit) and frees it.
static void take(char *field, size_t size, char *value) {
    if (value != NULL) {
        snprintf(field, size, "%s", value);
        free(value);
    }
}

int netrules_sd_login_sessions(netrules_login_session *sessions, int capacity, char *message, size_t size) {
    pthread_once(&login_once, login_load_once);
    if (!login_loaded) {
        snprintf(message, size, "%s", login_failure);
        return -1;
    }
    char **names = NULL;
    int count = login.get_sessions(&names);
    // No logind (no /run/systemd/sessions): no session, which is what the caller asks about.
    if (count < 0) return 0;
    int written = 0;
    for (int i = 0; i < count; i++) {
        if (written < capacity) {
            netrules_login_session *session = &sessions[written];
            memset(session, 0, sizeof *session);
            uid_t uid;
            if (login.session_get_uid(names[i], &uid) >= 0) {
                session->uid = uid;
                session->active = login.session_is_active(names[i]) > 0;
                session->remote = login.session_is_remote(names[i]) > 0;
                char *text = NULL;
                if (login.session_get_type(names[i], &text) >= 0) take(session->type, sizeof session->type, text);
                text = NULL;
                if (login.session_get_class(names[i], &text) >= 0) take(session->session_class, sizeof session->session_class, text);
                text = NULL;
                if (login.session_get_seat(names[i], &text) >= 0) take(session->seat, sizeof session->seat, text);
                written++;
            }
        }
        free(names[i]);
    }
    free(names);
    return written;
}
