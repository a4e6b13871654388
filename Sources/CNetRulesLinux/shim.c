#include "CNetRulesLinux.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

// Lock-free on every platform we build for, so both are safe to touch in a signal handler.
static atomic_int signal_wake_fd = -1;
static atomic_ullong signal_pending = 0;

void CNetRulesLinux_signal_handler(int signal) {
    // The handler may interrupt code that is about to read errno.
    int saved = errno;
    if (signal > 0 && signal < 64) {
        atomic_fetch_or(&signal_pending, 1ULL << signal);
    }
    int fd = atomic_load(&signal_wake_fd);
    if (fd >= 0) {
        uint64_t one = 1;
        // A full counter (never, in practice) loses only a wake-up the reader is already due for.
        ssize_t written = write(fd, &one, sizeof one);
        (void)written;
    }
    errno = saved;
}

void CNetRulesLinux_signal_set_wake_fd(int fd) { atomic_store(&signal_wake_fd, fd); }

unsigned long long CNetRulesLinux_signal_take_pending(void) { return atomic_exchange(&signal_pending, 0); }
