// Before any include: it makes glibc declare the GNU-only functions wrapped below (STYLE §11).
#define _GNU_SOURCE

#include "CNetRulesLinux.h"

#include <errno.h>
#include <execinfo.h>
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

// MARK: spawning with credentials or a death signal

#include <grp.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

// What the child needs, and where it reports a failure: with CLONE_VM it writes into the parent's
// memory, and with CLONE_VFORK the parent reads it only once the child has exec'd or exited.
struct spawn_as_user_arguments {
    const char *path;
    char *const *argv;
    char *const *envp;
    int standard_input, standard_output, standard_error;
    const char *working_directory;
    int change_credentials;
    int death_signal;
    pid_t parent;
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int group_count;
    int failed_step;
    int error;
};

// Ends the child after a failed step. The child shares the parent's memory and TLS, so it calls
// only async-signal-safe functions and raw system calls (no malloc, no locks, no stdio).
static int spawn_as_user_fail(struct spawn_as_user_arguments *arguments, int step) {
    arguments->failed_step = step;
    arguments->error = errno;
    _exit(127);
}

static int spawn_as_user_child(void *context) {
    struct spawn_as_user_arguments *arguments = context;
    struct sigaction defaults;
    memset(&defaults, 0, sizeof defaults);
    defaults.sa_handler = SIG_DFL;
    for (int signal = 1; signal < 32; signal++) {
        if (signal != SIGKILL && signal != SIGSTOP) sigaction(signal, &defaults, NULL);
    }
    if (setpgid(0, 0) != 0) return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_setpgid);
    // The pipe ends are all above 2 (0, 1 and 2 are open in the daemon), so no dup2 below
    // overwrites a descriptor a later one still needs.
    if (dup2(arguments->standard_input, 0) < 0 || dup2(arguments->standard_output, 1) < 0 ||
        (arguments->standard_error >= 0 && dup2(arguments->standard_error, 2) < 0)) {
        return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_dup2);
    }
    // Raw system calls, not glibc's setgroups/setgid/setuid: those make every other thread of the
    // process change its credentials too (setxid), which must not happen here — the daemon keeps
    // root. Groups first and the uid last: once the uid is not 0 the others can no longer change.
    if (arguments->change_credentials) {
        if (syscall(SYS_setgroups, (size_t)arguments->group_count, arguments->groups) != 0)
            return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_setgroups);
        if (syscall(SYS_setresgid, arguments->gid, arguments->gid, arguments->gid) != 0)
            return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_setgid);
        if (syscall(SYS_setresuid, arguments->uid, arguments->uid, arguments->uid) != 0)
            return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_setuid);
    }
    // After the credentials, which clear it (credentials(7)). The kernel sends it when the thread
    // that cloned us ends, so the caller clones from a thread that lives as long as the daemon.
    // If the daemon died before the prctl, we were already reparented: getppid() is no longer it,
    // and nothing would ever send the signal, so end here.
    if (arguments->death_signal != 0) {
        if (prctl(PR_SET_PDEATHSIG, (unsigned long)arguments->death_signal, 0UL, 0UL, 0UL) != 0)
            return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_death_signal);
        if (getppid() != arguments->parent) {
            errno = ESRCH;
            return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_death_signal);
        }
    }
    // After the uid: the directory is entered with the user's permissions, never root's.
    if (arguments->working_directory != NULL && chdir(arguments->working_directory) != 0)
        return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_chdir);
    // Descriptors some library opened without close-on-exec must not reach the program.
    syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(arguments->path, arguments->argv, arguments->envp);
    return spawn_as_user_fail(arguments, CNetRulesLinux_spawn_step_exec);
}

int CNetRulesLinux_spawn(const char *path, char *const argv[], char *const envp[], int standard_input,
                         int standard_output, int standard_error, const char *working_directory,
                         int change_credentials, uid_t uid, gid_t gid, const gid_t *groups, int group_count,
                         int death_signal, pid_t *pid, int *failed_step) {
    struct spawn_as_user_arguments arguments = {path,
                                                argv,
                                                envp,
                                                standard_input,
                                                standard_output,
                                                standard_error,
                                                working_directory,
                                                change_credentials,
                                                death_signal,
                                                getpid(),
                                                uid,
                                                gid,
                                                groups,
                                                group_count,
                                                0,
                                                0};
    *failed_step = CNetRulesLinux_spawn_step_fork;
    // The child's stack; it needs little (no libc beyond thin system-call wrappers).
    const size_t stack_size = 64 * 1024;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return errno;
    // Every signal blocked across the clone: the child must not run one of our handlers (in our
    // memory) before it has reset them to their defaults.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    // CLONE_VM | CLONE_VFORK, as glibc's posix_spawn: no copy of the address space (fork of a
    // 16 MB daemon cost 4-8 ms here, this 0.8 ms, posix_spawn's own 0.9 ms), and the call returns
    // once the child has exec'd or exited.
    pid_t child = clone(spawn_as_user_child, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &arguments);
    int clone_errno = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    munmap(stack, stack_size);
    if (child < 0) return clone_errno;
    if (arguments.failed_step != 0) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        *failed_step = arguments.failed_step;
        return arguments.error;
    }
    *pid = child;
    return 0;
}

static __thread int running_loop;

void CNetRulesLinux_set_running_loop(int running) { running_loop = running; }

int CNetRulesLinux_running_loop(void) { return running_loop; }

void CNetRulesLinux_write_backtrace(void) {
    void *frames[32];
    int count = backtrace(frames, 32);
    backtrace_symbols_fd(frames, count, 2);
}
