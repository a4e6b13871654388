#include "CSystemd.h"
#include "library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// One pointer per libsystemd function netrules calls, with the prototypes of sd-bus.h.
static struct {
    int (*bus_add_match)(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata);
    int (*bus_call)(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply);
    void (*bus_error_free)(sd_bus_error *e);
    sd_bus* (*bus_flush_close_unref)(sd_bus *bus);
    int (*bus_get_events)(sd_bus *bus);
    int (*bus_get_fd)(sd_bus *bus);
    int (*bus_get_timeout)(sd_bus *bus, uint64_t *timeout_usec);
    int (*bus_message_append_basic)(sd_bus_message *m, char type, const void *p);
    int (*bus_message_enter_container)(sd_bus_message *m, char type, const char *contents);
    int (*bus_message_exit_container)(sd_bus_message *m);
    const char* (*bus_message_get_interface)(sd_bus_message *m);
    const char* (*bus_message_get_member)(sd_bus_message *m);
    const char* (*bus_message_get_path)(sd_bus_message *m);
    int (*bus_message_get_type)(sd_bus_message *m, uint8_t *type);
    int (*bus_message_new_method_call)(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member);
    int (*bus_message_peek_type)(sd_bus_message *m, char *type, const char **contents);
    int (*bus_message_read_basic)(sd_bus_message *m, char type, void *p);
    int (*bus_message_rewind)(sd_bus_message *m, int complete);
    sd_bus_message* (*bus_message_unref)(sd_bus_message *m);
    int (*bus_new)(sd_bus **ret);
    int (*bus_open_system)(sd_bus **ret);
    int (*bus_process)(sd_bus *bus, sd_bus_message **r);
    int (*bus_set_address)(sd_bus *bus, const char *address);
    int (*bus_set_bus_client)(sd_bus *bus, int b);
    int (*bus_start)(sd_bus *bus);
    sd_bus* (*bus_unref)(sd_bus *bus);
    int (*id128_get_machine_app_specific)(sd_id128_t app_id, sd_id128_t *ret);
} sd;

static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static void *library_handle;
static char library_failure[256];

static void library_open(void) {
    library_handle = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library_handle == NULL) {
        const char *reason = dlerror();
        snprintf(library_failure, sizeof library_failure,
                 "cannot load libsystemd (install the libsystemd0 package): %s", reason ? reason : "unknown error");
    }
}

void *netrules_sd_library(const char **failure) {
    pthread_once(&library_once, library_open);
    if (library_handle == NULL && failure != NULL) *failure = library_failure;
    return library_handle;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static int loaded;

static void load_once(void) {
    const char *reason = NULL;
    void *library = netrules_sd_library(&reason);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", reason);
        return;
    }
    *(void **)(&sd.bus_add_match) = dlsym(library, "sd_bus_add_match");
    if (sd.bus_add_match == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_add_match");
        return;
    }
    *(void **)(&sd.bus_call) = dlsym(library, "sd_bus_call");
    if (sd.bus_call == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_call");
        return;
    }
    *(void **)(&sd.bus_error_free) = dlsym(library, "sd_bus_error_free");
    if (sd.bus_error_free == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_error_free");
        return;
    }
    *(void **)(&sd.bus_flush_close_unref) = dlsym(library, "sd_bus_flush_close_unref");
    if (sd.bus_flush_close_unref == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_flush_close_unref");
        return;
    }
    *(void **)(&sd.bus_get_events) = dlsym(library, "sd_bus_get_events");
    if (sd.bus_get_events == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_get_events");
        return;
    }
    *(void **)(&sd.bus_get_fd) = dlsym(library, "sd_bus_get_fd");
    if (sd.bus_get_fd == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_get_fd");
        return;
    }
    *(void **)(&sd.bus_get_timeout) = dlsym(library, "sd_bus_get_timeout");
    if (sd.bus_get_timeout == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_get_timeout");
        return;
    }
    *(void **)(&sd.bus_message_append_basic) = dlsym(library, "sd_bus_message_append_basic");
    if (sd.bus_message_append_basic == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_append_basic");
        return;
    }
    *(void **)(&sd.bus_message_enter_container) = dlsym(library, "sd_bus_message_enter_container");
    if (sd.bus_message_enter_container == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_enter_container");
        return;
    }
    *(void **)(&sd.bus_message_exit_container) = dlsym(library, "sd_bus_message_exit_container");
    if (sd.bus_message_exit_container == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_exit_container");
        return;
    }
    *(void **)(&sd.bus_message_get_interface) = dlsym(library, "sd_bus_message_get_interface");
    if (sd.bus_message_get_interface == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_get_interface");
        return;
    }
    *(void **)(&sd.bus_message_get_member) = dlsym(library, "sd_bus_message_get_member");
    if (sd.bus_message_get_member == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_get_member");
        return;
    }
    *(void **)(&sd.bus_message_get_path) = dlsym(library, "sd_bus_message_get_path");
    if (sd.bus_message_get_path == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_get_path");
        return;
    }
    *(void **)(&sd.bus_message_get_type) = dlsym(library, "sd_bus_message_get_type");
    if (sd.bus_message_get_type == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_get_type");
        return;
    }
    *(void **)(&sd.bus_message_new_method_call) = dlsym(library, "sd_bus_message_new_method_call");
    if (sd.bus_message_new_method_call == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_new_method_call");
        return;
    }
    *(void **)(&sd.bus_message_peek_type) = dlsym(library, "sd_bus_message_peek_type");
    if (sd.bus_message_peek_type == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_peek_type");
        return;
    }
    *(void **)(&sd.bus_message_read_basic) = dlsym(library, "sd_bus_message_read_basic");
    if (sd.bus_message_read_basic == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_read_basic");
        return;
    }
    *(void **)(&sd.bus_message_rewind) = dlsym(library, "sd_bus_message_rewind");
    if (sd.bus_message_rewind == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_rewind");
        return;
    }
    *(void **)(&sd.bus_message_unref) = dlsym(library, "sd_bus_message_unref");
    if (sd.bus_message_unref == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_message_unref");
        return;
    }
    *(void **)(&sd.bus_new) = dlsym(library, "sd_bus_new");
    if (sd.bus_new == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_new");
        return;
    }
    *(void **)(&sd.bus_open_system) = dlsym(library, "sd_bus_open_system");
    if (sd.bus_open_system == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_open_system");
        return;
    }
    *(void **)(&sd.bus_process) = dlsym(library, "sd_bus_process");
    if (sd.bus_process == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_process");
        return;
    }
    *(void **)(&sd.bus_set_address) = dlsym(library, "sd_bus_set_address");
    if (sd.bus_set_address == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_set_address");
        return;
    }
    *(void **)(&sd.bus_set_bus_client) = dlsym(library, "sd_bus_set_bus_client");
    if (sd.bus_set_bus_client == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_set_bus_client");
        return;
    }
    *(void **)(&sd.bus_start) = dlsym(library, "sd_bus_start");
    if (sd.bus_start == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_start");
        return;
    }
    *(void **)(&sd.bus_unref) = dlsym(library, "sd_bus_unref");
    if (sd.bus_unref == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_bus_unref");
        return;
    }
    *(void **)(&sd.id128_get_machine_app_specific) = dlsym(library, "sd_id128_get_machine_app_specific");
    if (sd.id128_get_machine_app_specific == NULL) {
        snprintf(failure, sizeof failure, "libsystemd.so.0 lacks sd_id128_get_machine_app_specific");
        return;
    }
    loaded = 1;
}

int netrules_sd_bus_load(char *message, size_t size) {
    pthread_once(&once, load_once);
    if (loaded) return 0;
    if (message != NULL && size > 0) snprintf(message, size, "%s", failure);
    return -1;
}

int netrules_sd_bus_add_match(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata) {
    return sd.bus_add_match(bus, slot, match, callback, userdata);
}

int netrules_sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply) {
    return sd.bus_call(bus, m, usec, ret_error, reply);
}

void netrules_sd_bus_error_free(sd_bus_error *e) {
    sd.bus_error_free(e);
}

sd_bus* netrules_sd_bus_flush_close_unref(sd_bus *bus) {
    return sd.bus_flush_close_unref(bus);
}

int netrules_sd_bus_get_events(sd_bus *bus) {
    return sd.bus_get_events(bus);
}

int netrules_sd_bus_get_fd(sd_bus *bus) {
    return sd.bus_get_fd(bus);
}

int netrules_sd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec) {
    return sd.bus_get_timeout(bus, timeout_usec);
}

int netrules_sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p) {
    return sd.bus_message_append_basic(m, type, p);
}

int netrules_sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents) {
    return sd.bus_message_enter_container(m, type, contents);
}

int netrules_sd_bus_message_exit_container(sd_bus_message *m) {
    return sd.bus_message_exit_container(m);
}

const char* netrules_sd_bus_message_get_interface(sd_bus_message *m) {
    return sd.bus_message_get_interface(m);
}

const char* netrules_sd_bus_message_get_member(sd_bus_message *m) {
    return sd.bus_message_get_member(m);
}

const char* netrules_sd_bus_message_get_path(sd_bus_message *m) {
    return sd.bus_message_get_path(m);
}

int netrules_sd_bus_message_get_type(sd_bus_message *m, uint8_t *type) {
    return sd.bus_message_get_type(m, type);
}

int netrules_sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member) {
    return sd.bus_message_new_method_call(bus, m, destination, path, interface, member);
}

int netrules_sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents) {
    return sd.bus_message_peek_type(m, type, contents);
}

int netrules_sd_bus_message_read_basic(sd_bus_message *m, char type, void *p) {
    return sd.bus_message_read_basic(m, type, p);
}

int netrules_sd_bus_message_rewind(sd_bus_message *m, int complete) {
    return sd.bus_message_rewind(m, complete);
}

sd_bus_message* netrules_sd_bus_message_unref(sd_bus_message *m) {
    return sd.bus_message_unref(m);
}

int netrules_sd_bus_new(sd_bus **ret) {
    return sd.bus_new(ret);
}

int netrules_sd_bus_open_system(sd_bus **ret) {
    return sd.bus_open_system(ret);
}

int netrules_sd_bus_process(sd_bus *bus, sd_bus_message **r) {
    return sd.bus_process(bus, r);
}

int netrules_sd_bus_set_address(sd_bus *bus, const char *address) {
    return sd.bus_set_address(bus, address);
}

int netrules_sd_bus_set_bus_client(sd_bus *bus, int b) {
    return sd.bus_set_bus_client(bus, b);
}

int netrules_sd_bus_start(sd_bus *bus) {
    return sd.bus_start(bus);
}

sd_bus* netrules_sd_bus_unref(sd_bus *bus) {
    return sd.bus_unref(bus);
}

int netrules_sd_id128_get_machine_app_specific(const uint8_t app[16], uint8_t out[16]) {
    sd_id128_t app_id, result;
    for (int i = 0; i < 16; i++) app_id.bytes[i] = app[i];
    int r = sd.id128_get_machine_app_specific(app_id, &result);
    if (r < 0) return r;
    for (int i = 0; i < 16; i++) out[i] = result.bytes[i];
    return 0;
}
