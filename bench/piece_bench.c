/* piece_bench.c — the transpose kernel on the pieces a transform moves:
 * A := B^T for the (n / nb)^2 whole nb x nb pieces of n x n doubles,
 * column-major, one rl_move per piece (as a transform's local moves and
 * unpacks call it), both matrices starting `shift` bytes past a cache
 * line (malloc's large blocks start 16 bytes past one).  B is a whole matrix (as in local moves) or, with -p,
 * its pieces packed one after another (as in a received message).  Each
 * time is the median of R passes after one warm-up, one thread.
 *
 *   piece_bench [-n N] [-b NB,NB...] [-s SHIFT,SHIFT...] [-r R] [-p] [-k ISA]
 * (-k: the instruction set, c, sse2, avx2 or avx512; the best one the CPU
 * has by default).
 * Prints one markdown row per (nb, shift). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "measure.h"

typedef struct {
    int64_t n, nb;
    size_t shift;
    int packed;
} piece_case;

/* B's piece (bi, bj) lands at A's (bj, bi), transposed. */
static void one_pass(const piece_case *c, const rl_scalars *sc, double *a, const double *b)
{
    int64_t n = c->n, nb = c->nb, k = 0;
    for (int64_t bi = 0; bi < n / nb; bi++)
        for (int64_t bj = 0; bj < n / nb; bj++, k++) {
            rl_side d = {a + bj * nb + bi * nb * n, 1, n};
            rl_side s = c->packed ? (rl_side){(double *)b + k * nb * nb, nb, 1} : (rl_side){(double *)b + bi * nb + bj * nb * n, n, 1};
            rl_move(sc, 0, d, s, nb, nb);
        }
    rl_stream_fence();
}

static double time_case(const piece_case *c, int reps)
{
    size_t bytes = (size_t)(c->n * c->n) * sizeof(double), padded = (bytes + 64 + 63) / 64 * 64;
    char *ab = aligned_alloc(64, padded), *bb = aligned_alloc(64, padded);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!ab || !bb || !t) {
        fprintf(stderr, "piece_bench: out of memory\n");
        exit(1);
    }
    double *a = (double *)(ab + c->shift), *b = (double *)(bb + c->shift);
    for (int64_t i = 0; i < c->n * c->n; i++) a[i] = 0, b[i] = (double)i;
    rl_scalars sc;
    rl_scalars_set(&sc, RELAY_DOUBLE, NULL, NULL);
    sc.large_dst = sc.defer_fence = (int64_t)bytes >= RL_LARGE_DST_BYTES; /* as a transform sets them */
    one_pass(c, &sc, a, b);
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        one_pass(c, &sc, a, b);
        t[r] = now() - t0;
    }
    double med = median_of(t, reps);
    free(t);
    free(ab);
    free(bb);
    return med;
}

static int parse_list(const char *arg, int64_t *out, int max)
{
    int k = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && k < max; tok = strtok_r(NULL, ",", &save)) out[k++] = atoll(tok);
    free(copy);
    return k;
}

/* Pieces that fit the matrix, shifts of whole doubles within a line. */
static int valid(int64_t n, const int64_t *blocks, int nblocks, const int64_t *shifts, int nshifts, int reps)
{
    int ok = n >= 1 && reps >= 1;
    for (int i = 0; i < nblocks; i++) ok &= blocks[i] >= 1 && blocks[i] <= n;
    for (int s = 0; s < nshifts; s++) ok &= shifts[s] >= 0 && shifts[s] < 64 && shifts[s] % 8 == 0;
    if (!ok) fprintf(stderr, "piece_bench: -n and -r positive, pieces of 1 to n, shifts of 0-56 bytes in steps of 8\n");
    return ok;
}

/* The instruction set named (rl_isa_name's names), if the CPU has it. */
static relay_status use_isa(const char *name)
{
    for (int i = 0; i < RL_ISA_COUNT; i++)
        if (!strcmp(name, rl_isa_name((rl_isa)i))) {
            if (rl_kernels_use((rl_isa)i) == RELAY_OK) return RELAY_OK;
            break;
        }
    fprintf(stderr, "piece_bench: -k %s: not an instruction set this CPU has\n", name);
    return RELAY_ERR_ARG;
}

int main(int argc, char **argv)
{
    int64_t n = 3000, blocks[8] = {8, 16, 32, 64, 128}, shifts[8] = {0, 16};
    int nblocks = 5, nshifts = 2, reps = 9, packed = 0, opt;
    while ((opt = getopt(argc, argv, "n:b:s:r:pk:")) != -1) {
        if (opt == 'n') n = atoll(optarg);
        else if (opt == 'b') nblocks = parse_list(optarg, blocks, 8);
        else if (opt == 's') nshifts = parse_list(optarg, shifts, 8);
        else if (opt == 'r') reps = atoi(optarg);
        else if (opt == 'p') packed = 1;
        else if (opt == 'k') {
            if (use_isa(optarg) != RELAY_OK) return 2;
        }
        else {
            fprintf(stderr, "usage: piece_bench [-n N] [-b NB,NB...] [-s SHIFT,SHIFT...] [-r R] [-p] [-k ISA]\n");
            return 2;
        }
    }
    if (!valid(n, blocks, nblocks, shifts, nshifts, reps)) return 2;
    printf("| n | nb | B | shift bytes | isa | ms |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < nblocks; i++)
        for (int s = 0; s < nshifts; s++) {
            piece_case c = {n, blocks[i], (size_t)shifts[s], packed};
            double t = time_case(&c, reps);
            printf("| %lld | %lld | %s | %lld | %s | %.2f |\n", (long long)n, (long long)c.nb, packed ? "packed" : "matrix",
                   (long long)c.shift, rl_isa_name(rl_kernels_isa()), 1e3 * t);
        }
    return 0;
}
