#ifndef NETRULES_CSYSTEMD_LIBRARY_H
#define NETRULES_CSYSTEMD_LIBRARY_H
// The module's one handle on libsystemd.so.0, which loader.c (sd-bus) and login.c (sd-login)
// resolve their functions from: opened the first time either needs it, thread-safe
// (pthread_once), never closed. Private to the module (outside include/), so Swift never sees it.

// The handle, or NULL with the reason (a static string, "cannot load libsystemd …") in `*failure`.
void *netrules_sd_library(const char **failure);

#endif
