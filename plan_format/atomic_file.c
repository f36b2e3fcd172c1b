/* atomic_file.c — writing a file atomically beside its final name
 * (atomic_file.h): a temporary file in the same directory, created
 * exclusively under a fresh name, written, flushed to disk and renamed
 * over the final name, which rename(2) replaces atomically.
 *
 * mkstemp would create the temporary file with mode 0600 whatever the
 * umask, and the rename would carry that mode to the final file: a plan
 * written for a job could not be read by the job's group.  open(2) with
 * 0666 lets the umask decide, as for any other new file. */
#define _POSIX_C_SOURCE 200809L /* fdopen, fileno, fsync, O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "error.h"

enum { NAME_TRIES = 100, SUFFIX_CHARS = 6 };
static const char tmp_infix[] = ".tmp.";

/* SplitMix64: a well-mixed 64-bit sequence from any seed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A seed that differs between processes (pid), calls (counter) and runs
 * (time), so that writers beside the same name rarely try the same names. */
static uint64_t fresh_seed(void)
{
    static atomic_uint_fast64_t calls;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return s ^ (uint64_t)getpid() << 40 ^ (uint64_t)atomic_fetch_add(&calls, 1) << 20;
}

/* Creates tmp, whose last SUFFIX_CHARS characters it chooses, with mode
 * 0666 less the umask and only if no such file exists, trying fresh names
 * while one does.  Returns the descriptor, or -1 with errno set. */
static int create_exclusive(char *tmp, size_t suffix_at)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint64_t state = fresh_seed();
    for (int t = 0; t < NAME_TRIES; t++) {
        uint64_t v = next_random(&state);
        for (int i = 0; i < SUFFIX_CHARS; i++, v /= sizeof chars - 1) tmp[suffix_at + i] = chars[v % (sizeof chars - 1)];
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1; /* errno is EEXIST */
}

static void release(rl_atomic_file *af)
{
    free(af->tmp);
    *af = (rl_atomic_file){NULL, NULL, NULL};
}

relay_status rl_atomic_open(rl_atomic_file *af, const char *path)
{
    size_t n = strlen(path), infix = sizeof tmp_infix - 1;
    *af = (rl_atomic_file){NULL, malloc(n + infix + SUFFIX_CHARS + 1), path};
    if (!af->tmp) return RL_NOMEM();
    memcpy(af->tmp, path, n);
    memcpy(af->tmp + n, tmp_infix, infix);
    af->tmp[n + infix + SUFFIX_CHARS] = '\0';
    int fd = create_exclusive(af->tmp, n + infix);
    relay_status st = RELAY_OK;
    if (fd < 0) st = rl_fail(RELAY_ERR_IO, "cannot create a temporary file beside %s: %s", path, strerror(errno));
    else if (!(af->file = fdopen(fd, "wb"))) {
        st = rl_fail(RELAY_ERR_IO, "cannot open %s: %s", af->tmp, strerror(errno));
        close(fd);
        unlink(af->tmp);
    }
    if (st) release(af);
    return st;
}

relay_status rl_atomic_commit(rl_atomic_file *af)
{
    relay_status st = RELAY_OK;
    if (ferror(af->file) || fflush(af->file) != 0 || fsync(fileno(af->file)) != 0)
        st = rl_fail(RELAY_ERR_IO, "writing %s failed: %s", af->tmp, strerror(errno));
    if (fclose(af->file) != 0 && !st) st = rl_fail(RELAY_ERR_IO, "closing %s failed: %s", af->tmp, strerror(errno));
    if (!st && rename(af->tmp, af->path) != 0)
        st = rl_fail(RELAY_ERR_IO, "cannot rename %s to %s: %s", af->tmp, af->path, strerror(errno));
    if (st) unlink(af->tmp);
    release(af);
    return st;
}

void rl_atomic_abort(rl_atomic_file *af)
{
    fclose(af->file);
    unlink(af->tmp);
    release(af);
}
