#ifndef NETRULES_CSYSTEMD_H
#define NETRULES_CSYSTEMD_H
// sd-bus from libsystemd, for the NetworkManager observer, loaded with dlopen(3) when a D-Bus
// connection is first opened: a daemon that never talks to NetworkManager does not map libsystemd
// and what it pulls in (libgcrypt, liblz4, libzstd, liblzma, libcap). sd-bus.h gives the types;
// each function is reached through its netrules_ twin below, never directly, so the binary has no
// link-time dependency on libsystemd. The generated wrappers are in loader.c.

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

// Loads libsystemd.so.0 and resolves every function below; thread-safe (pthread_once). Returns 0
// when sd-bus is usable; otherwise -1 and, in `message` (at most `size` bytes), what failed.
int netrules_sd_bus_load(char *message, size_t size);

int netrules_sd_bus_add_match(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata);
int netrules_sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply);
void netrules_sd_bus_error_free(sd_bus_error *e);
sd_bus* netrules_sd_bus_flush_close_unref(sd_bus *bus);
int netrules_sd_bus_get_events(sd_bus *bus);
int netrules_sd_bus_get_fd(sd_bus *bus);
int netrules_sd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec);
int netrules_sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p);
int netrules_sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents);
int netrules_sd_bus_message_exit_container(sd_bus_message *m);
const char* netrules_sd_bus_message_get_interface(sd_bus_message *m);
const char* netrules_sd_bus_message_get_member(sd_bus_message *m);
const char* netrules_sd_bus_message_get_path(sd_bus_message *m);
int netrules_sd_bus_message_get_type(sd_bus_message *m, uint8_t *type);
int netrules_sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member);
int netrules_sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents);
int netrules_sd_bus_message_read_basic(sd_bus_message *m, char type, void *p);
int netrules_sd_bus_message_rewind(sd_bus_message *m, int complete);
sd_bus_message* netrules_sd_bus_message_unref(sd_bus_message *m);
int netrules_sd_bus_new(sd_bus **ret);
int netrules_sd_bus_open_system(sd_bus **ret);
int netrules_sd_bus_process(sd_bus *bus, sd_bus_message **r);
int netrules_sd_bus_set_address(sd_bus *bus, const char *address);
int netrules_sd_bus_set_bus_client(sd_bus *bus, int b);
int netrules_sd_bus_start(sd_bus *bus);
sd_bus* netrules_sd_bus_unref(sd_bus *bus);

// MARK: sd-login (login.c, hand-written): the sessions logind knows, for `user: active`.

/// One logind session, as sd_session_get_uid/_is_active/_is_remote/_get_type/_get_class/_get_seat
/// report it; a text that cannot be read is empty.
typedef struct {
    unsigned int uid;
    int active;
    int remote;
    char type[16];
    char session_class[16];
    char seat[32];
} netrules_login_session;

// Lists logind's sessions (sd_get_sessions(3)) into `sessions`, at most `capacity`. Returns how
// many were written, 0 when logind runs no session (or is not running); -1 when libsystemd cannot
// be loaded, with the reason in `message`. Reads /run/systemd: no D-Bus, no daemon contacted.
int netrules_sd_login_sessions(netrules_login_session *sessions, int capacity, char *message, size_t size);

// sd_id128_get_machine_app_specific(3): the machine id hashed (HMAC-SHA256) with an application
// id, so a stable per-machine id can be shown without revealing /etc/machine-id (the MQTT client
// id). Writes 16 bytes to `out`; returns 0 or a negative errno. Needs netrules_sd_bus_load first.
int netrules_sd_id128_get_machine_app_specific(const uint8_t app[16], uint8_t out[16]);

#endif
