/* lattice_scale.c — how large a structured plan would be (issue 15): the
 * 2-D lattices of planner/bc_lattice.c for the plan_scale move (n x n
 * doubles, FROM x FROM blocks on a near-square pr x pc grid numbered
 * row-major to TO x TO blocks on pc x pr numbered column-major) and for
 * COSTA's Figure 3 (`--fig3`: 10 x 10 grids, row-major to column-major).
 * For one rank (rank 0, alone) and for every rank (one overlay shared by
 * all): lattices, the pieces they stand for, and the time to compute them,
 * never expanding a piece.
 *
 *   lattice_scale N P FROM TO        e.g. lattice_scale 100000 4096 32 128
 *   lattice_scale --fig3 B           COSTA Figure 3 with initial blocks B */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getrusage */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc_lattice.h"
#include "measure.h"

typedef struct {
    int64_t lattices, pieces;
} side_count;

static int near_square_rows(int p)
{
    int r = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0) r = d;
    return r;
}

/* Lattices and pieces of one rank's send and receive sides. */
static relay_status count_rank(const rl_bc_overlay *ov, int rank, side_count *c)
{
    for (int send = 0; send < 2; send++) {
        rl_lattice_side s;
        relay_status st = rl_bc_overlay_side(ov, rank, send, &s);
        if (st) return st;
        c->lattices += s.nlattices + s.nlocal;
        for (int64_t k = 0; k < s.nlattices; k++) c->pieces += rl_lattice_npieces(&s.lattices[k]);
        for (int64_t k = 0; k < s.nlocal; k++) c->pieces += rl_lattice_npieces(&s.local[k]);
        rl_lattice_side_free(&s);
    }
    return RELAY_OK;
}

/* Rank 0 alone, as a rank planning its own section would (its own
 * overlay), then every rank from one shared overlay, as a planner building
 * every section would. */
static relay_status count_all(const rl_pair *pair, int P, side_count *one, side_count *all, double *t_one,
                              double *t_all)
{
    rl_bc_overlay *ov;
    double t0 = now();
    relay_status st = rl_bc_overlay_create(&ov, pair, 1);
    if (st) return st;
    st = count_rank(ov, 0, one);
    rl_bc_overlay_free(ov);
    double t1 = now();
    if (!st) st = rl_bc_overlay_create(&ov, pair, 1);
    if (st) return st;
    for (int r = 0; !st && r < P; r++) st = count_rank(ov, r, all);
    rl_bc_overlay_free(ov);
    *t_one = t1 - t0;
    *t_all = now() - t1;
    return st;
}

static int fail(const char *what)
{
    fprintf(stderr, "lattice_scale: %s: %s\n", what, relay_last_error());
    return 1;
}

static int run(int64_t n, int P, int pr, int pc, int64_t from, int64_t to, relay_order to_order)
{
    relay_layout *la, *lb;
    if (relay_layout_block_cyclic(&lb, n, n, from, from, pr, pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
        relay_layout_block_cyclic(&la, n, n, to, to, to_order == RELAY_COL_MAJOR ? pc : pr,
                                  to_order == RELAY_COL_MAJOR ? pr : pc, to_order, 0, 0, 0, RELAY_COL_MAJOR))
        return fail("layouts");
    rl_pair pair = {.op = RELAY_OP_N, .dst = la, .dst_relabeled = la, .src = lb};
    side_count one = {0}, all = {0};
    double t_one = 0, t_all = 0;
    relay_status st = count_all(&pair, P, &one, &all, &t_one, &t_all);
    relay_layout_free(la);
    relay_layout_free(lb);
    if (st) return fail("lattices");
    printf("| %lld | %d | %lld -> %lld | %lld | %lld | %.4f | %lld | %lld | %.3f | %.0f |\n", (long long)n, P,
           (long long)from, (long long)to, (long long)one.lattices, (long long)one.pieces, t_one,
           (long long)all.lattices, (long long)all.pieces, t_all, peak_rss_mib());
    return 0;
}

int main(int argc, char **argv)
{
    int fig3 = argc == 3 && strcmp(argv[1], "--fig3") == 0;
    if (!fig3 && argc != 5) {
        fprintf(stderr, "usage: lattice_scale N P FROM TO | lattice_scale --fig3 B\n");
        return 2;
    }
    printf("| n | ranks | blocks | rank 0 lattices | rank 0 pieces | rank 0 s | all lattices | all pieces | all s |"
           " peak RSS MiB |\n|---|---|---|---|---|---|---|---|---|---|\n");
    if (fig3) return run(100000, 100, 10, 10, atoll(argv[2]), 10000, RELAY_COL_MAJOR);
    int P = atoi(argv[2]), pr = near_square_rows(P);
    return run(atoll(argv[1]), P, pr, P / pr, atoll(argv[3]), atoll(argv[4]), RELAY_COL_MAJOR);
}
