/* cma.c — cross-memory attach on Linux (cma.h): who this process is to a
 * peer, whether a peer can be read, and reading runs of its memory.
 *
 * A pid names a process only within one node and one pid namespace, so a
 * card carries a key of both (the kernel's boot id and the namespace's
 * inode); containers on one host share the boot id but not, as a rule,
 * the namespace.  Even then the key can lie (a pid reused, a namespace
 * inode seen from elsewhere), so a reader proves it reads the right
 * process by reading back the peer's random cookie before it trusts it.
 * Reading needs ptrace permission: the same user and, under Yama's
 * ptrace_scope 1, the target's consent (PR_SET_PTRACER, given only once a
 * peer means to read); scopes 2 and 3 forbid it, and seccomp profiles
 * (containers) may refuse the call, which the cookie read then finds out. */
#define _GNU_SOURCE
#include "cma.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#ifdef __linux__
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>

enum { IOV_BATCH = 64 }; /* runs per system call (IOV_MAX is 1024) */

static uint64_t cookie;
static int scope;
static pthread_once_t once = PTHREAD_ONCE_INIT, consent = PTHREAD_ONCE_INIT;

/* Yama's ptrace scope: 0 where Yama is absent (no restriction). */
static int ptrace_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int value = 0;
    if (!f) return 0;
    if (fscanf(f, "%d", &value) != 1) value = 3; /* unreadable: assume the strictest */
    fclose(f);
    return value;
}

static void set_up_once(void)
{
    while (!cookie)
        if (getrandom(&cookie, sizeof cookie, 0) != (ssize_t)sizeof cookie)
            cookie = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15u ^ (uint64_t)getpid();
    scope = ptrace_scope();
}

static void consent_once(void)
{
    if (scope == 1) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

void rl_cma_let_read(void)
{
    pthread_once(&once, set_up_once);
    pthread_once(&consent, consent_once);
}

/* The boot id and the pid namespace's inode, hashed. */
static uint64_t node_key(void)
{
    char id[64] = {0};
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id, sizeof id, f)) id[0] = 0;
        fclose(f);
    }
    struct stat ns;
    uint64_t ino = stat("/proc/self/ns/pid", &ns) == 0 ? (uint64_t)ns.st_ino : 0;
    return XXH3_64bits_withSeed(id, strlen(id), ino);
}

void rl_cma_card_make(rl_cma_card *c)
{
    pthread_once(&once, set_up_once);
    *c = (rl_cma_card){getpid(), node_key(), (uint64_t)(uintptr_t)&cookie, cookie, scope <= 1};
}

int rl_cma_read(int64_t pid, void *to, size_t bytes, const rl_cma_run *runs, int n)
{
    struct iovec local = {to, bytes}, remote[IOV_BATCH];
    for (int i = 0; i < n; i += IOV_BATCH) {
        int batch = n - i < IOV_BATCH ? n - i : IOV_BATCH;
        size_t want = 0;
        for (int r = 0; r < batch; r++) {
            remote[r] = (struct iovec){(void *)(uintptr_t)runs[i + r].at, runs[i + r].len};
            want += runs[i + r].len;
        }
        if (want > bytes) return EINVAL;
        local = (struct iovec){(char *)local.iov_base, want};
        ssize_t got = process_vm_readv((pid_t)pid, &local, 1, remote, (unsigned long)batch, 0);
        if (got < 0) return errno;
        if ((size_t)got != want) return EFAULT;
        local.iov_base = (char *)local.iov_base + want;
        bytes -= want;
    }
    return 0;
}

int rl_cma_can_read(const rl_cma_card *mine, const rl_cma_card *peer)
{
    if (!peer->readable || peer->node != mine->node || peer->pid == mine->pid) return 0;
    uint64_t seen = 0;
    rl_cma_run run = {peer->cookie_at, sizeof seen};
    return rl_cma_read(peer->pid, &seen, sizeof seen, &run, 1) == 0 && seen == peer->cookie;
}

#else /* not Linux: no process can be read */

void rl_cma_card_make(rl_cma_card *c) { *c = (rl_cma_card){0, 0, 0, 0, 0}; }

void rl_cma_let_read(void) {}

int rl_cma_can_read(const rl_cma_card *mine, const rl_cma_card *peer)
{
    (void)mine;
    (void)peer;
    return 0;
}

int rl_cma_read(int64_t pid, void *to, size_t bytes, const rl_cma_run *runs, int n)
{
    (void)pid, (void)to, (void)bytes, (void)runs, (void)n;
    return ENOSYS;
}

#endif
