#ifndef NETRULES_CMOSQUITTO_H
#define NETRULES_CMOSQUITTO_H
// libmosquitto (MQTT 5 and 3.1.1), loaded with dlopen(3) the first time an `mqtt:` section makes
// the daemon connect, so a daemon without one never maps libmosquitto and the OpenSSL it pulls
// in. mosquitto.h and mqtt_protocol.h give the types and constants (libmosquitto-dev at build
// time); every function netrules calls is reached through its netrules_ twin below, never
// directly, so the binary has no link-time dependency on libmosquitto. The wrappers are in loader.c.

#include <stdbool.h>
#include <stddef.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

// Loads libmosquitto.so.1, resolves every function below and runs mosquitto_lib_init once;
// thread-safe (pthread_once). Returns 0 when libmosquitto is usable; otherwise -1 and, in
// `message` (at most `size` bytes, NUL-terminated), what failed.
int netrules_mosquitto_load(char *message, size_t size);

// Whether netrules_mosquitto_load has succeeded in this process (for tests and benchmarks).
int netrules_mosquitto_is_loaded(void);

int netrules_mosquitto_lib_version(int *major, int *minor, int *revision);
struct mosquitto *netrules_mosquitto_new(const char *id, bool clean_session, void *obj);
void netrules_mosquitto_destroy(struct mosquitto *mosq);
int netrules_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value);
int netrules_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
int netrules_mosquitto_will_set_v5(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain, mosquitto_property *properties);
int netrules_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile);
int netrules_mosquitto_tls_insecure_set(struct mosquitto *mosq, bool value);
int netrules_mosquitto_connect_bind_v5(struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address, const mosquitto_property *properties);
int netrules_mosquitto_disconnect_v5(struct mosquitto *mosq, int reason_code, const mosquitto_property *properties);
int netrules_mosquitto_publish_v5(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain, const mosquitto_property *properties);
int netrules_mosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, const mosquitto_property *properties);
int netrules_mosquitto_loop_read(struct mosquitto *mosq, int max_packets);
int netrules_mosquitto_loop_write(struct mosquitto *mosq, int max_packets);
int netrules_mosquitto_loop_misc(struct mosquitto *mosq);
int netrules_mosquitto_socket(struct mosquitto *mosq);
bool netrules_mosquitto_want_write(struct mosquitto *mosq);
void netrules_mosquitto_connect_v5_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *));
void netrules_mosquitto_disconnect_v5_callback_set(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *));
void netrules_mosquitto_message_v5_callback_set(struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *));
void netrules_mosquitto_publish_v5_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *));
const char *netrules_mosquitto_strerror(int mosq_errno);
const char *netrules_mosquitto_reason_string(int reason_code);
int netrules_mosquitto_property_add_string_pair(mosquitto_property **proplist, int identifier, const char *name, const char *value);
int netrules_mosquitto_property_add_int32(mosquitto_property **proplist, int identifier, uint32_t value);
void netrules_mosquitto_property_free_all(mosquitto_property **properties);

#endif
