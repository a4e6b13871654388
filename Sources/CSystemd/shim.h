// sd-bus from libsystemd (libsystemd-dev), for the NetworkManager observer.
#include <systemd/sd-bus.h>
