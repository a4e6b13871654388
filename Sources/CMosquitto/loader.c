#include "CMosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// One pointer per libmosquitto function netrules calls, with the prototypes of mosquitto.h.
static struct {
    int (*lib_version)(int *major, int *minor, int *revision);
    struct mosquitto * (*new)(const char *id, bool clean_session, void *obj);
    void (*destroy)(struct mosquitto *mosq);
    int (*int_option)(struct mosquitto *mosq, enum mosq_opt_t option, int value);
    int (*username_pw_set)(struct mosquitto *mosq, const char *username, const char *password);
    int (*will_set_v5)(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain, mosquitto_property *properties);
    int (*tls_set)(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
    int (*tls_insecure_set)(struct mosquitto *mosq, bool value);
    int (*connect_bind_v5)(struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address, const mosquitto_property *properties);
    int (*disconnect_v5)(struct mosquitto *mosq, int reason_code, const mosquitto_property *properties);
    int (*publish_v5)(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain, const mosquitto_property *properties);
    int (*subscribe_v5)(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, const mosquitto_property *properties);
    int (*loop_read)(struct mosquitto *mosq, int max_packets);
    int (*loop_write)(struct mosquitto *mosq, int max_packets);
    int (*loop_misc)(struct mosquitto *mosq);
    int (*socket)(struct mosquitto *mosq);
    bool (*want_write)(struct mosquitto *mosq);
    void (*connect_v5_callback_set)(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *));
    void (*disconnect_v5_callback_set)(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *));
    void (*message_v5_callback_set)(struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *));
    void (*publish_v5_callback_set)(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *));
    const char * (*strerror)(int mosq_errno);
    const char * (*reason_string)(int reason_code);
    int (*property_add_string_pair)(mosquitto_property **proplist, int identifier, const char *name, const char *value);
    int (*property_add_int32)(mosquitto_property **proplist, int identifier, uint32_t value);
    void (*property_free_all)(mosquitto_property **properties);
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static int loaded;

static void load_once(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "cannot load libmosquitto (install the libmosquitto1 package): %s",
                 reason ? reason : "unknown error");
        return;
    }
    *(void **)(&lib.lib_version) = dlsym(library, "mosquitto_lib_version");
    if (lib.lib_version == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_lib_version");
        return;
    }
    *(void **)(&lib.new) = dlsym(library, "mosquitto_new");
    if (lib.new == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_new");
        return;
    }
    *(void **)(&lib.destroy) = dlsym(library, "mosquitto_destroy");
    if (lib.destroy == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_destroy");
        return;
    }
    *(void **)(&lib.int_option) = dlsym(library, "mosquitto_int_option");
    if (lib.int_option == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_int_option");
        return;
    }
    *(void **)(&lib.username_pw_set) = dlsym(library, "mosquitto_username_pw_set");
    if (lib.username_pw_set == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_username_pw_set");
        return;
    }
    *(void **)(&lib.will_set_v5) = dlsym(library, "mosquitto_will_set_v5");
    if (lib.will_set_v5 == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_will_set_v5");
        return;
    }
    *(void **)(&lib.tls_set) = dlsym(library, "mosquitto_tls_set");
    if (lib.tls_set == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_tls_set");
        return;
    }
    *(void **)(&lib.tls_insecure_set) = dlsym(library, "mosquitto_tls_insecure_set");
    if (lib.tls_insecure_set == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_tls_insecure_set");
        return;
    }
    *(void **)(&lib.connect_bind_v5) = dlsym(library, "mosquitto_connect_bind_v5");
    if (lib.connect_bind_v5 == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_connect_bind_v5");
        return;
    }
    *(void **)(&lib.disconnect_v5) = dlsym(library, "mosquitto_disconnect_v5");
    if (lib.disconnect_v5 == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_disconnect_v5");
        return;
    }
    *(void **)(&lib.publish_v5) = dlsym(library, "mosquitto_publish_v5");
    if (lib.publish_v5 == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_publish_v5");
        return;
    }
    *(void **)(&lib.subscribe_v5) = dlsym(library, "mosquitto_subscribe_v5");
    if (lib.subscribe_v5 == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_subscribe_v5");
        return;
    }
    *(void **)(&lib.loop_read) = dlsym(library, "mosquitto_loop_read");
    if (lib.loop_read == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_loop_read");
        return;
    }
    *(void **)(&lib.loop_write) = dlsym(library, "mosquitto_loop_write");
    if (lib.loop_write == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_loop_write");
        return;
    }
    *(void **)(&lib.loop_misc) = dlsym(library, "mosquitto_loop_misc");
    if (lib.loop_misc == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_loop_misc");
        return;
    }
    *(void **)(&lib.socket) = dlsym(library, "mosquitto_socket");
    if (lib.socket == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_socket");
        return;
    }
    *(void **)(&lib.want_write) = dlsym(library, "mosquitto_want_write");
    if (lib.want_write == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_want_write");
        return;
    }
    *(void **)(&lib.connect_v5_callback_set) = dlsym(library, "mosquitto_connect_v5_callback_set");
    if (lib.connect_v5_callback_set == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_connect_v5_callback_set");
        return;
    }
    *(void **)(&lib.disconnect_v5_callback_set) = dlsym(library, "mosquitto_disconnect_v5_callback_set");
    if (lib.disconnect_v5_callback_set == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_disconnect_v5_callback_set");
        return;
    }
    *(void **)(&lib.message_v5_callback_set) = dlsym(library, "mosquitto_message_v5_callback_set");
    if (lib.message_v5_callback_set == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_message_v5_callback_set");
        return;
    }
    *(void **)(&lib.publish_v5_callback_set) = dlsym(library, "mosquitto_publish_v5_callback_set");
    if (lib.publish_v5_callback_set == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_publish_v5_callback_set");
        return;
    }
    *(void **)(&lib.strerror) = dlsym(library, "mosquitto_strerror");
    if (lib.strerror == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_strerror");
        return;
    }
    *(void **)(&lib.reason_string) = dlsym(library, "mosquitto_reason_string");
    if (lib.reason_string == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_reason_string");
        return;
    }
    *(void **)(&lib.property_add_string_pair) = dlsym(library, "mosquitto_property_add_string_pair");
    if (lib.property_add_string_pair == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_property_add_string_pair");
        return;
    }
    *(void **)(&lib.property_add_int32) = dlsym(library, "mosquitto_property_add_int32");
    if (lib.property_add_int32 == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_property_add_int32");
        return;
    }
    *(void **)(&lib.property_free_all) = dlsym(library, "mosquitto_property_free_all");
    if (lib.property_free_all == NULL) {
        snprintf(failure, sizeof failure, "libmosquitto.so.1 lacks mosquitto_property_free_all");
        return;
    }
    int (*lib_init)(void);
    *(void **)(&lib_init) = dlsym(library, "mosquitto_lib_init");
    if (lib_init == NULL || lib_init() != MOSQ_ERR_SUCCESS) {
        snprintf(failure, sizeof failure, "mosquitto_lib_init failed");
        return;
    }
    loaded = 1;
}

int netrules_mosquitto_load(char *message, size_t size) {
    pthread_once(&once, load_once);
    if (loaded) return 0;
    if (message != NULL && size > 0) snprintf(message, size, "%s", failure);
    return -1;
}

int netrules_mosquitto_is_loaded(void) {
    return loaded;
}

int netrules_mosquitto_lib_version(int *major, int *minor, int *revision) {
    return lib.lib_version(major, minor, revision);
}

struct mosquitto * netrules_mosquitto_new(const char *id, bool clean_session, void *obj) {
    return lib.new(id, clean_session, obj);
}

void netrules_mosquitto_destroy(struct mosquitto *mosq) {
    lib.destroy(mosq);
}

int netrules_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value) {
    return lib.int_option(mosq, option, value);
}

int netrules_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return lib.username_pw_set(mosq, username, password);
}

int netrules_mosquitto_will_set_v5(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain, mosquitto_property *properties) {
    return lib.will_set_v5(mosq, topic, payloadlen, payload, qos, retain, properties);
}

int netrules_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile) {
    return lib.tls_set(mosq, cafile, capath, certfile, keyfile, NULL);
}

int netrules_mosquitto_tls_insecure_set(struct mosquitto *mosq, bool value) {
    return lib.tls_insecure_set(mosq, value);
}

int netrules_mosquitto_connect_bind_v5(struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address, const mosquitto_property *properties) {
    return lib.connect_bind_v5(mosq, host, port, keepalive, bind_address, properties);
}

int netrules_mosquitto_disconnect_v5(struct mosquitto *mosq, int reason_code, const mosquitto_property *properties) {
    return lib.disconnect_v5(mosq, reason_code, properties);
}

int netrules_mosquitto_publish_v5(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain, const mosquitto_property *properties) {
    return lib.publish_v5(mosq, mid, topic, payloadlen, payload, qos, retain, properties);
}

int netrules_mosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, const mosquitto_property *properties) {
    return lib.subscribe_v5(mosq, mid, sub, qos, options, properties);
}

int netrules_mosquitto_loop_read(struct mosquitto *mosq, int max_packets) {
    return lib.loop_read(mosq, max_packets);
}

int netrules_mosquitto_loop_write(struct mosquitto *mosq, int max_packets) {
    return lib.loop_write(mosq, max_packets);
}

int netrules_mosquitto_loop_misc(struct mosquitto *mosq) {
    return lib.loop_misc(mosq);
}

int netrules_mosquitto_socket(struct mosquitto *mosq) {
    return lib.socket(mosq);
}

bool netrules_mosquitto_want_write(struct mosquitto *mosq) {
    return lib.want_write(mosq);
}

void netrules_mosquitto_connect_v5_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *)) {
    lib.connect_v5_callback_set(mosq, on_connect);
}

void netrules_mosquitto_disconnect_v5_callback_set(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *)) {
    lib.disconnect_v5_callback_set(mosq, on_disconnect);
}

void netrules_mosquitto_message_v5_callback_set(struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *)) {
    lib.message_v5_callback_set(mosq, on_message);
}

void netrules_mosquitto_publish_v5_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *)) {
    lib.publish_v5_callback_set(mosq, on_publish);
}

const char * netrules_mosquitto_strerror(int mosq_errno) {
    return lib.strerror(mosq_errno);
}

const char * netrules_mosquitto_reason_string(int reason_code) {
    return lib.reason_string(reason_code);
}

int netrules_mosquitto_property_add_string_pair(mosquitto_property **proplist, int identifier, const char *name, const char *value) {
    return lib.property_add_string_pair(proplist, identifier, name, value);
}

int netrules_mosquitto_property_add_int32(mosquitto_property **proplist, int identifier, uint32_t value) {
    return lib.property_add_int32(proplist, identifier, value);
}

void netrules_mosquitto_property_free_all(mosquitto_property **properties) {
    lib.property_free_all(properties);
}
