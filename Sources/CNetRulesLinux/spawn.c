// Before any include: it makes glibc declare the GNU-only functions used below (STYLE §11).
#define _GNU_SOURCE

#include "CNetRulesLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// A spawn that does what posix_spawn(3) does for ChildProcess (a new process group, three
// descriptors dup2'ed onto 0/1/2, an optional working directory, every other descriptor closed,
// default signal dispositions, an empty signal mask) with fewer system calls on the way to exec:
//
// - clone3(2) with CLONE_CLEAR_SIGHAND resets every handled signal in the kernel, where glibc's
//   posix_spawn asks and sets each of the 64 signals in the child (about 95 system calls between
//   the fork and the exec of every action);
// - CLONE_PIDFD returns the pidfd with the child, so no pidfd_open(2) follows;
// - the child runs on a stack in this function's frame (the parent is suspended until the exec,
//   CLONE_VFORK), so no mmap(2)/munmap(2) per spawn.
//
// Only on x86-64, the one architecture this file has the clone3 entry sequence for; elsewhere,
// and where clone3 or CLONE_CLEAR_SIGHAND is missing (Linux < 5.5) or filtered (seccomp), it
// returns -ENOSYS and the caller uses posix_spawn(3).

#if defined(__x86_64__)

struct child_context {
    const CNetRulesLinux_spawn_request *request;
    // Written by the child, which shares this memory (CLONE_VM), when it cannot exec.
    volatile int error;
};

// The kernel's struct sigaction, for rt_sigaction(2) without glibc's wrapper.
struct kernel_sigaction {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};

static int dup_onto(int from, int to) {
    if (from < 0) return 0;
    // dup2 onto itself would leave close-on-exec set: clear it instead, as posix_spawn does.
    if (from == to) return fcntl(to, F_SETFD, 0);
    return dup2(from, to) < 0 ? -1 : 0;
}

// Runs in the child, on the child's stack, with every signal blocked, until it execs or exits.
static int child_main(void *raw) {
    struct child_context *context = raw;
    const CNetRulesLinux_spawn_request *request = context->request;
    // Handled signals were reset by CLONE_CLEAR_SIGHAND; an ignored one stays ignored across exec
    // (SIGPIPE under systemd), so the classic signals are set to their defaults as well.
    struct kernel_sigaction fallback = {SIG_DFL, 0, NULL, 0};
    for (int signal = 1; signal < 32; signal++) {
        if (signal == SIGKILL || signal == SIGSTOP) continue;
        syscall(SYS_rt_sigaction, signal, &fallback, NULL, sizeof(uint64_t));
    }
    // glibc's posix_spawn leaves its two internal signals (32 and 33, SIGCANCEL and SIGSETXID)
    // ignored in the child; so does this start, so the program sees the same dispositions.
    struct kernel_sigaction ignored = {SIG_IGN, 0, NULL, 0};
    syscall(SYS_rt_sigaction, 32, &ignored, NULL, sizeof(uint64_t));
    syscall(SYS_rt_sigaction, 33, &ignored, NULL, sizeof(uint64_t));
    if (setpgid(0, 0) != 0) goto failed;
    if (dup_onto(request->standard_input, 0) != 0) goto failed;
    if (dup_onto(request->standard_output, 1) != 0) goto failed;
    if (dup_onto(request->standard_error, 2) != 0) goto failed;
    if (request->directory != NULL && chdir(request->directory) != 0) goto failed;
    closefrom(3);
    uint64_t none = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof none);
    execve(request->path, request->argv, request->envp);
failed:
    context->error = errno;
    _exit(127);
}

// clone3(2), then, in the child only, `entry(argument)` on the new stack and exit_group with its
// result. The registers the child needs are callee-saved ones, which the kernel copies into it.
static long clone3_calling(struct clone_args *arguments, int (*entry)(void *), void *argument) {
    register long rax __asm__("rax") = SYS_clone3;
    register struct clone_args *rdi __asm__("rdi") = arguments;
    register size_t rsi __asm__("rsi") = sizeof *arguments;
    register int (*r12)(void *) __asm__("r12") = entry;
    register void *r13 __asm__("r13") = argument;
    __asm__ __volatile__(
        "syscall\n\t"
        "testq %%rax, %%rax\n\t"
        "jnz 1f\n\t"
        "xorl %%ebp, %%ebp\n\t"
        "movq %%r13, %%rdi\n\t"
        "callq *%%r12\n\t"
        "movl %%eax, %%edi\n\t"
        "movl $231, %%eax\n\t"
        "syscall\n\t"
        "ud2\n"
        "1:"
        : "+r"(rax)
        : "r"(rdi), "r"(rsi), "r"(r12), "r"(r13)
        : "rcx", "r11", "memory", "cc");
    return rax;
}

int CNetRulesLinux_spawn(const CNetRulesLinux_spawn_request *request, pid_t *pid, int *pidfd) {
    struct child_context context = {request, 0};
    // The child's stack: enough for execve, closefrom's /proc fallback and the calls above.
    _Alignas(64) char stack[32 * 1024];
    int descriptor = -1;
    struct clone_args arguments;
    memset(&arguments, 0, sizeof arguments);
    arguments.flags = CLONE_VM | CLONE_VFORK | CLONE_CLEAR_SIGHAND | CLONE_PIDFD;
    arguments.pidfd = (uint64_t)(uintptr_t)&descriptor;
    arguments.exit_signal = SIGCHLD;
    arguments.stack = (uint64_t)(uintptr_t)stack;
    arguments.stack_size = sizeof stack;

    // No signal may run a handler in the child before the handlers are reset (it shares our
    // memory), glibc's internal ones included, which sigprocmask(3) would leave unblocked.
    uint64_t all = ~(uint64_t)0, previous = 0;
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &previous, sizeof all);
    long child = clone3_calling(&arguments, child_main, &context);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, NULL, sizeof previous);

    if (child < 0) return (int)child;  // -errno from the kernel: ENOSYS, EINVAL (no CLONE_CLEAR_SIGHAND), EPERM
    if (context.error != 0) {
        // The child exited without exec'ing: reap it and report why, as posix_spawn does.
        int status;
        while (waitpid((pid_t)child, &status, 0) < 0 && errno == EINTR) {
        }
        close(descriptor);
        return context.error;
    }
    *pid = (pid_t)child;
    *pidfd = descriptor;
    return 0;
}

#else

int CNetRulesLinux_spawn(const CNetRulesLinux_spawn_request *request, pid_t *pid, int *pidfd) {
    (void)request;
    (void)pid;
    (void)pidfd;
    return -ENOSYS;
}

#endif
