#ifndef NETRULES_CNETRULESLINUX_H
#define NETRULES_CNETRULESLINUX_H
// Kernel headers for netlink, rtnetlink, generic netlink and nl80211, plus
// static inline wrappers for the macros Swift cannot import.
//
// Swift imports only macros that expand to a constant; the function-like
// macros below take pointers or evaluate expressions, so the Swift importer
// drops them. Each wrapper keeps the kernel's own definition as the single
// source of truth for netlink alignment and bounds checks.
#include <stdbool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/genetlink.h>
#include <linux/nl80211.h>
#include <linux/sched.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

// MARK: nlmsghdr (linux/netlink.h)

/// NLMSG_ALIGN: function-like macro, not importable.
static inline unsigned int CNetRulesLinux_NLMSG_ALIGN(unsigned int len) { return NLMSG_ALIGN(len); }

/// NLMSG_HDRLEN: a cast expression, not a plain constant, so Swift drops it.
static inline int CNetRulesLinux_NLMSG_HDRLEN(void) { return NLMSG_HDRLEN; }

/// NLMSG_LENGTH: function-like macro, not importable.
static inline unsigned int CNetRulesLinux_NLMSG_LENGTH(unsigned int len) { return NLMSG_LENGTH(len); }

/// NLMSG_OK: dereferences the header, so it cannot be a Swift constant.
static inline bool CNetRulesLinux_NLMSG_OK(const struct nlmsghdr *nlh, int len) { return NLMSG_OK(nlh, len); }

/// NLMSG_NEXT: mutates `len` through a comma expression; wrapped with an out-parameter.
static inline struct nlmsghdr *CNetRulesLinux_NLMSG_NEXT(struct nlmsghdr *nlh, int *len) {
    return NLMSG_NEXT(nlh, *len);
}

/// NLMSG_DATA: pointer arithmetic macro.
static inline void *CNetRulesLinux_NLMSG_DATA(struct nlmsghdr *nlh) { return NLMSG_DATA(nlh); }

// MARK: rtattr (linux/rtnetlink.h)

/// RTA_ALIGN: function-like macro, not importable.
static inline unsigned int CNetRulesLinux_RTA_ALIGN(unsigned int len) { return RTA_ALIGN(len); }

/// RTA_LENGTH: function-like macro, not importable.
static inline unsigned int CNetRulesLinux_RTA_LENGTH(unsigned int len) { return RTA_LENGTH(len); }

/// RTA_OK: dereferences the attribute, so it cannot be a Swift constant.
static inline bool CNetRulesLinux_RTA_OK(const struct rtattr *rta, int len) { return RTA_OK(rta, len); }

// MARK: nlattr (linux/netlink.h), used by generic netlink and nl80211

/// NLA_ALIGN: function-like macro, not importable.
static inline int CNetRulesLinux_NLA_ALIGN(int len) { return NLA_ALIGN(len); }

/// NLA_HDRLEN: a cast expression, so Swift drops it.
static inline int CNetRulesLinux_NLA_HDRLEN(void) { return NLA_HDRLEN; }

// MARK: generic netlink (linux/genetlink.h)

/// GENL_HDRLEN: a sizeof expression wrapped in NLMSG_ALIGN, so Swift drops it.
static inline int CNetRulesLinux_GENL_HDRLEN(void) { return GENL_HDRLEN; }

// MARK: GNU-only functions (shim.c)
//
// glibc declares these only under _GNU_SOURCE, which Swift's Glibc module does not define, so
// Swift cannot see them. shim.c defines _GNU_SOURCE and calls the real glibc functions; the
// declarations here need no feature macro. Each sets errno (or returns its error) exactly as the
// glibc function does.

/// accept4(2): accepts with SOCK_CLOEXEC/SOCK_NONBLOCK set atomically.
int CNetRulesLinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// pipe2(2): both ends get `flags` (O_CLOEXEC, O_NONBLOCK) atomically.
int CNetRulesLinux_pipe2(int fds[2], int flags);

/// pidfd_open(2) (glibc 2.36, <sys/pidfd.h>): a descriptor that becomes readable when `pid` exits.
int CNetRulesLinux_pidfd_open(pid_t pid, unsigned int flags);

/// posix_spawn_file_actions_addclosefrom_np(3) (glibc 2.34): closes every descriptor >= `from` in the child.
int CNetRulesLinux_posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// posix_spawn_file_actions_addchdir_np(3) (glibc 2.29): changes the child's working directory.
int CNetRulesLinux_posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

/// sigdescr_np(3) (glibc 2.32): strsignal's C-locale text without its static buffer; NULL if unknown.
const char *CNetRulesLinux_sigdescr_np(int signal);

/// gettid(2): the calling thread's kernel id.
pid_t CNetRulesLinux_gettid(void);

/// getrusage(2) with RUSAGE_THREAD (GNU-only): the calling thread's voluntary context switches.
long CNetRulesLinux_thread_voluntary_switches(void);

/// setns(2): moves the calling thread into the namespace of `fd`.
int CNetRulesLinux_setns(int fd, int nstype);

// MARK: spawning with credentials or a death signal

/// The step of `CNetRulesLinux_spawn` that failed (plain macros: Swift imports them as CInt).
#define CNetRulesLinux_spawn_step_fork 1
#define CNetRulesLinux_spawn_step_setpgid 2
#define CNetRulesLinux_spawn_step_dup2 3
#define CNetRulesLinux_spawn_step_setgroups 4
#define CNetRulesLinux_spawn_step_setgid 5
#define CNetRulesLinux_spawn_step_setuid 6
#define CNetRulesLinux_spawn_step_chdir 7
#define CNetRulesLinux_spawn_step_exec 8
#define CNetRulesLinux_spawn_step_death_signal 9

/// Starts `path` as posix_spawn(3) would, plus what it cannot do: with `change_credentials`, as
/// `uid`/`gid` with exactly `groups` (glibc's has no credential attributes); with `death_signal`
/// not 0, `PR_SET_PDEATHSIG` so the child gets that signal when the calling *thread* ends
/// (prctl(2): the thread, not the process), which must be set between fork and exec.
/// clone(CLONE_VM | CLONE_VFORK) as glibc's posix_spawn does, then in the child only
/// async-signal-safe calls — default signal dispositions, a process group of its own, the three
/// descriptors as 0/1/2 (`standard_error` -1: ours), setgroups/setresgid/setresuid as raw system
/// calls, chdir to `working_directory` (NULL: ours) as the new user, the death signal and a check
/// that the parent is still the caller's process, descriptors >= 3 close-on-exec, an empty signal
/// mask, execve. Returns 0 and the child's pid once it has exec'd; otherwise the errno and, in
/// `failed_step`, which step failed (the child is reaped). Design note 0010 says why this and not
/// setpriv(1).
int CNetRulesLinux_spawn(const char *path, char *const argv[], char *const envp[], int standard_input,
                         int standard_output, int standard_error, const char *working_directory,
                         int change_credentials, uid_t uid, gid_t gid, const gid_t *groups, int group_count,
                         int death_signal, pid_t *pid, int *failed_step);

// MARK: threads

/// Names the calling thread for ps/top (pthread_setname_np is _GNU_SOURCE-only; prctl is not).
static inline void CNetRulesLinux_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

// MARK: signals

/// The signal handler behind the daemon's signal events (shim.c): it records `signal` as pending
/// and writes to the descriptor from `CNetRulesLinux_signal_set_wake_fd`. A signal handler must be
/// async-signal-safe, which Swift code cannot promise, so it is C.
void CNetRulesLinux_signal_handler(int signal);

/// Sets the eventfd the handler writes to (an 8-byte 1) after recording a signal; -1 for none.
void CNetRulesLinux_signal_set_wake_fd(int fd);

/// The signals recorded since the last call, as a bit mask (bit N for signal N), cleared atomically.
unsigned long long CNetRulesLinux_signal_take_pending(void);

// MARK: the event loop's thread

/// Marks the calling thread as running an event loop's jobs (1) or not (0): a thread-local flag
/// the blocking wrappers read in debug builds (`LoopGuard`).
void CNetRulesLinux_set_running_loop(int running);
/// Whether the calling thread runs an event loop's jobs now.
int CNetRulesLinux_running_loop(void);
/// Writes the calling thread's stack (backtrace(3)) to stderr.
void CNetRulesLinux_write_backtrace(void);

#endif
