// Before any include: it makes glibc declare the GNU-only functions wrapped below (STYLE §11).
#define _GNU_SOURCE

#include "CNetRulesLinux.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
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

// MARK: GNU-only functions

int CNetRulesLinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

int CNetRulesLinux_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

int CNetRulesLinux_pidfd_open(pid_t pid, unsigned int flags) { return pidfd_open(pid, flags); }

int CNetRulesLinux_posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int CNetRulesLinux_posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

const char *CNetRulesLinux_sigdescr_np(int signal) { return sigdescr_np(signal); }

pid_t CNetRulesLinux_gettid(void) { return gettid(); }

long CNetRulesLinux_thread_voluntary_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
    return usage.ru_nvcsw;
}

int CNetRulesLinux_setns(int fd, int nstype) { return setns(fd, nstype); }
