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
#include <sys/prctl.h>
#include <sys/syscall.h>
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

// MARK: threads

/// gettid(2): glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not
/// define, so it is invisible to Swift; the raw syscall is the same call.
static inline int CNetRulesLinux_gettid(void) { return (int)syscall(SYS_gettid); }

/// setns(2): declared only under _GNU_SOURCE (see gettid); the raw syscall sets errno the same way.
static inline int CNetRulesLinux_setns(int fd, int nstype) { return (int)syscall(SYS_setns, fd, nstype); }

/// pipe2(2): declared only under _GNU_SOURCE (see gettid).
static inline int CNetRulesLinux_pipe2(int fds[2], int flags) { return (int)syscall(SYS_pipe2, fds, flags); }

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

#endif
