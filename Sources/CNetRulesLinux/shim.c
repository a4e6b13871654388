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

// MARK: spawning as another user

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sys/wait.h>

// Reports a failed step to the parent through the close-on-exec pipe and ends the child. Only
// async-signal-safe calls: the parent may have had other threads when it forked.
static void spawn_as_user_fail(int report, int step) {
    int message[2] = {step, errno};
    ssize_t ignored = write(report, message, sizeof message);
    (void)ignored;
    _exit(127);
}

int CNetRulesLinux_spawn_as_user(const char *path, char *const argv[], char *const envp[], int standard_input,
                                 int standard_output, int standard_error, const char *working_directory,
                                 uid_t uid, gid_t gid, const gid_t *groups, int group_count, pid_t *pid,
                                 int *failed_step) {
    *failed_step = CNetRulesLinux_spawn_step_fork;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    // Every signal blocked across the fork: the child must not run one of our handlers before it
    // has reset them to their defaults.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    // _Fork (glibc 2.34) is fork without the atfork handlers, async-signal-safe: the handlers of
    // the Swift runtime and libdispatch are not for a child that only calls exec.
    pid_t child = _Fork();
    if (child == 0) {
        close(report[0]);
        struct sigaction defaults;
        memset(&defaults, 0, sizeof defaults);
        defaults.sa_handler = SIG_DFL;
        for (int signal = 1; signal < 32; signal++) {
            if (signal != SIGKILL && signal != SIGSTOP) sigaction(signal, &defaults, NULL);
        }
        if (setpgid(0, 0) != 0) spawn_as_user_fail(report[1], CNetRulesLinux_spawn_step_setpgid);
        // The pipe ends are all above 2 (0, 1 and 2 are open in the daemon), so no dup2 below
        // overwrites a descriptor a later one still needs.
        if (dup2(standard_input, 0) < 0 || dup2(standard_output, 1) < 0 ||
            (standard_error >= 0 && dup2(standard_error, 2) < 0)) {
            spawn_as_user_fail(report[1], CNetRulesLinux_spawn_step_dup2);
        }
        // Raw system calls, not glibc's setgroups/setgid/setuid: those signal every other thread
        // of the process to change its credentials too (setxid), machinery that is neither needed
        // nor safe in a child of a multithreaded process. Groups first, the uid last: once the
        // uid is not 0 the others can no longer change.
        if (syscall(SYS_setgroups, (size_t)group_count, groups) != 0)
            spawn_as_user_fail(report[1], CNetRulesLinux_spawn_step_setgroups);
        if (syscall(SYS_setresgid, gid, gid, gid) != 0) spawn_as_user_fail(report[1], CNetRulesLinux_spawn_step_setgid);
        if (syscall(SYS_setresuid, uid, uid, uid) != 0) spawn_as_user_fail(report[1], CNetRulesLinux_spawn_step_setuid);
        // After the uid: the directory is entered with the user's permissions, never root's.
        if (working_directory != NULL && chdir(working_directory) != 0)
            spawn_as_user_fail(report[1], CNetRulesLinux_spawn_step_chdir);
        // Descriptors some library opened without close-on-exec must not reach the child either;
        // the report pipe is close-on-exec already.
        syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
        spawn_as_user_fail(report[1], CNetRulesLinux_spawn_step_exec);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        return fork_errno;
    }
    // EOF: the exec succeeded (the pipe closed with it); a message: the step that failed.
    int message[2] = {0, 0};
    ssize_t got;
    do {
        got = read(report[0], message, sizeof message);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof message) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        *failed_step = message[0];
        return message[1];
    }
    *pid = child;
    return 0;
}
