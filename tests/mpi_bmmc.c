/* mpi_bmmc.c — BMMC replays under mpiexec against the serial reference.
 *
 * At 2^p ranks: random nonsingular matrices and complements, every
 * rank-bit position f from processor-minor to processor-major, several
 * element sizes, plus the standard permutations.  Each rank fills its
 * buffer with the global index of every element it holds and, after the
 * replay, must hold at each global index y the element x with y = A x ^ c,
 * computed by reference.c (row by row, where relay works by columns).
 * Plans travel through the codec as each rank's own load; replays repeat on
 * fresh buffers, split-phase, and in place.  Each rank's remote bytes must
 * add up to the plan's statistics.  At other rank counts a BMMC plan must
 * fail relay_exec_create on every rank with RELAY_ERR_MISMATCH. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "relay/relay.h"

static int rank, nranks, failed, passed;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, " (%s)\n", relay_last_error());                \
            failed++;                                                      \
            return;                                                        \
        }                                                                  \
    } while (0)

/* The global index of offset o on rank k, and back (bits f..f+p-1 are the rank). */
static uint64_t global_index(uint64_t o, uint64_t k, int p, int f) { return (o & ((1ull << f) - 1)) | k << f | (o >> f) << (f + p); }
static uint64_t offset_of(uint64_t x, int p, int f) { return (x & ((1ull << f) - 1)) | (x >> (f + p)) << f; }
static uint64_t rank_of(uint64_t x, int p, int f) { return x >> f & ((1ull << p) - 1); }

/* An element of esz bytes that names x (and differs in every byte from its
 * neighbours' for esz >= 8). */
static void store(unsigned char *e, size_t esz, uint64_t x, uint64_t salt)
{
    for (size_t b = 0; b < esz; b++) e[b] = (unsigned char)((x ^ salt) >> (8 * (b % 8)) ^ (b / 8) * 0x5b);
}

static int log2_exact(int v)
{
    int p = 0;
    while ((1 << p) < v) p++;
    return (1 << p) == v ? p : -1;
}

/* Plans perm, ships it through a buffer, replays it `reps` times and
 * compares with the reference. */
static void run_case(const relay_bmmc *perm, int p, int f, size_t esz, const char *name)
{
    int n = perm->n;
    relay_plan *planned = NULL, *plan = NULL;
    void *buf = NULL;
    size_t len = 0;
    CHECK(relay_plan_bmmc(&planned, perm, p, f, esz) == RELAY_OK, "%s: planning failed", name);
    CHECK(relay_plan_encode(planned, &buf, &len) == RELAY_OK, "%s: encoding", name);
    CHECK(relay_plan_decode(&plan, buf, len, rank) == RELAY_OK, "%s: decoding", name);
    free(buf);
    relay_exec *e;
    CHECK(relay_exec_create(&e, plan, MPI_COMM_WORLD) == RELAY_OK, "%s: binding", name);
    uint64_t elems = 1ull << (n - p);
    unsigned char *in = malloc(elems * esz), *out = malloc(elems * esz), *want = malloc(elems * esz);
    /* expected: the element whose target is this rank's y */
    for (uint64_t x = 0; x < 1ull << n; x++) {
        uint64_t y = ref_bmmc_target(perm->columns, perm->complement, n, x);
        if ((int)rank_of(y, p, f) == rank) store(want + offset_of(y, p, f) * esz, esz, x, 0);
    }
    int bad = 0;
    for (int rep = 0; rep < 3 && !bad; rep++) {
        for (uint64_t o = 0; o < elems; o++) store(in + o * esz, esz, global_index(o, (uint64_t)rank, p, f), 0);
        unsigned char *dst = rep == 2 ? in : out; /* the last replay in place */
        memset(out, 0xee, elems * esz);
        void *d[1] = {dst};
        const void *s[1] = {in};
        relay_status st = rep == 1 ? relay_exec_start(e, d, s, NULL, NULL) : relay_exec_run(e, d, s, NULL, NULL);
        if (!st && rep == 1) st = relay_exec_wait(e);
        if (st || memcmp(dst, want, elems * esz)) bad = 1 + rep;
    }
    relay_exec_memory mem;
    relay_plan_stats stats;
    relay_exec_get_memory(e, &mem);
    relay_plan_get_stats(plan, &stats);
    long long remote = mem.remote_bytes, total = 0;
    MPI_Allreduce(&remote, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    relay_exec_free(e);
    relay_plan_free(plan);
    relay_plan_free(planned);
    free(in);
    free(out);
    free(want);
    CHECK(!bad, "%s (n = %d, p = %d, f = %d, %zu-byte elements): replay %d differs from the reference", name, n, p, f, esz, bad - 1);
    CHECK(total == 2 * stats.bytes_remote, "%s: ranks move %lld remote bytes, the plan says %lld", name, total / 2,
          (long long)stats.bytes_remote);
    passed++;
}

static void random_cases(int p)
{
    static const size_t sizes[] = {8, 4, 1, 24, 16};
    ref_rng r;
    ref_rng_seed(&r, 1000 + (uint64_t)p);
    for (int trial = 0; trial < 60; trial++) {
        relay_bmmc m = {0};
        m.n = p + (int)ref_rng_range(&r, p == 0, 10);
        ref_bmmc_random(&r, m.n, m.columns);
        m.complement = ref_rng_next(&r) & ((1ull << m.n) - 1);
        int f = (int)ref_rng_range(&r, 0, m.n - p);
        if (trial % 3 == 0) f = trial % 2 ? 0 : m.n - p; /* processor-minor and -major often */
        run_case(&m, p, f, sizes[trial % 5], "random");
    }
}

static void standard_cases(int p)
{
    relay_bmmc m;
    int n = p + 6;
    for (int f = 0; f <= n - p; f += 2) {
        relay_bmmc_bit_reversal(&m, n);
        run_case(&m, p, f, 8, "bit reversal");
        relay_bmmc_vector_reversal(&m, n);
        run_case(&m, p, f, 8, "vector reversal");
        relay_bmmc_gray_code(&m, n);
        run_case(&m, p, f, 8, "gray code");
        relay_bmmc_shuffle(&m, n);
        run_case(&m, p, f, 8, "shuffle");
        relay_bmmc_unshuffle(&m, n);
        run_case(&m, p, f, 8, "unshuffle");
        relay_bmmc_transpose(&m, 3, n - 3);
        run_case(&m, p, f, 16, "transpose");
    }
}

/* A plan for another rank count fails everywhere, not on some ranks. */
static void wrong_size_fails_everywhere(void)
{
    relay_bmmc m;
    relay_plan *plan;
    relay_exec *e = NULL;
    int p = log2_exact(nranks) == 2 ? 1 : 2;
    relay_bmmc_bit_reversal(&m, 8);
    CHECK(relay_plan_bmmc(&plan, &m, p, 0, 8) == RELAY_OK, "planning");
    relay_status st = relay_exec_create(&e, plan, MPI_COMM_WORLD);
    relay_plan_free(plan);
    CHECK(st == RELAY_ERR_MISMATCH && e == NULL, "a %d-rank BMMC plan on %d ranks gave status %d", 1 << p, nranks, (int)st);
    passed++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int p = log2_exact(nranks);
    if (p >= 0) {
        random_cases(p);
        standard_cases(p);
    }
    wrong_size_fails_everywhere();
    if (rank == 0) printf("mpi_bmmc: %d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
