/* lattice_scale.c — how large and how fast structured plans are,
 * for the plan_scale move (n x n doubles, FROM x FROM blocks on a
 * near-square pr x pc grid numbered row-major to TO x TO blocks on pc x pr
 * numbered column-major) and for COSTA's Figure 3 (`--fig3`: 10 x 10
 * grids, row-major to column-major).
 *
 *   lattice_scale N P FROM TO        the lattices of plan_format/lattice/section.c,
 *                                    never expanding a piece: rank 0's
 *                                    sides from a batch of its own, then
 *                                    every rank's from one shared batch
 *   lattice_scale --fig3 B           the same for COSTA Figure 3, blocks B
 *   lattice_scale --rank-plan N P FROM TO
 *                                    relay_plan_transform_rank for rank 0
 *   lattice_scale --plan N P FROM TO relay_plan_transform_batch, every rank
 *
 * Plans use the default options (no relabeling, schedule auto).  Each mode
 * prints one markdown table row with the process's peak RSS, so run one
 * mode per process (e.g. lattice_scale --plan 100000 4096 32 128). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getrusage */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "section.h"

typedef struct {
    int64_t lattices, pieces;
} side_count;

/* The move: B's blocks of `from` on pr x pc (row-major) to A's of `to` on
 * pc x pr (column-major), n x n, over P ranks. */
typedef struct {
    int64_t n;
    int P, pr, pc;
    int64_t from, to;
} move;

static int near_square_rows(int p)
{
    int r = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0) r = d;
    return r;
}

static relay_status make_layouts(const move *mv, relay_layout **la, relay_layout **lb)
{
    relay_status st = relay_layout_block_cyclic(lb, mv->n, mv->n, mv->from, mv->from, mv->pr, mv->pc, RELAY_ROW_MAJOR,
                                                0, 0, 0, RELAY_COL_MAJOR);
    if (st) return st;
    st = relay_layout_block_cyclic(la, mv->n, mv->n, mv->to, mv->to, mv->pc, mv->pr, RELAY_COL_MAJOR, 0, 0, 0,
                                   RELAY_COL_MAJOR);
    if (st) relay_layout_free(*lb);
    return st;
}

static int fail(const char *what)
{
    fprintf(stderr, "lattice_scale: %s: %s\n", what, relay_last_error());
    return 1;
}

static void print_move(const move *mv)
{
    printf("| %lld | %d | %lld -> %lld |", (long long)mv->n, mv->P, (long long)mv->from, (long long)mv->to);
}

/* ---- lattices ---------------------------------------------------------------- */

/* Lattices and pieces of one rank's send and receive sides. */
static relay_status count_rank(const rl_batch *b, int rank, side_count *c)
{
    for (int send = 0; send < 2; send++) {
        rl_lattice_side s;
        relay_status st = rl_batch_side(b, rank, send, &s);
        if (st) return st;
        c->lattices += s.nlattices + s.nlocal;
        for (int64_t k = 0; k < s.nlattices; k++) c->pieces += rl_lattice_npieces(&s.lattices[k]);
        for (int64_t k = 0; k < s.nlocal; k++) c->pieces += rl_lattice_npieces(&s.local[k]);
        rl_lattice_side_free(&s);
    }
    return RELAY_OK;
}

/* Rank 0 alone, as a rank planning its own section would (a batch of its
 * own), then every rank from one shared batch, as a planner building every
 * section would. */
static relay_status count_all(const rl_pair *pair, int P, side_count *one, side_count *all, double *t_one,
                              double *t_all)
{
    rl_batch *b;
    double t0 = now();
    relay_status st = rl_batch_create(&b, pair, 1, RELAY_DOUBLE);
    if (st) return st;
    st = count_rank(b, 0, one);
    rl_batch_free(b);
    double t1 = now();
    if (!st) st = rl_batch_create(&b, pair, 1, RELAY_DOUBLE);
    if (st) return st;
    for (int r = 0; !st && r < P; r++) st = count_rank(b, r, all);
    rl_batch_free(b);
    *t_one = t1 - t0;
    *t_all = now() - t1;
    return st;
}

static int run_lattices(const move *mv)
{
    relay_layout *la, *lb;
    if (make_layouts(mv, &la, &lb)) return fail("layouts");
    rl_pair pair = {.op = RELAY_OP_N, .dst = la, .dst_relabeled = la, .src = lb};
    side_count one = {0}, all = {0};
    double t_one = 0, t_all = 0;
    relay_status st = count_all(&pair, mv->P, &one, &all, &t_one, &t_all);
    relay_layout_free(la);
    relay_layout_free(lb);
    if (st) return fail("lattices");
    printf("| n | ranks | blocks | rank 0 lattices | rank 0 pieces | rank 0 s | all lattices | all pieces | all s |"
           " peak RSS MiB |\n|---|---|---|---|---|---|---|---|---|---|\n");
    print_move(mv);
    printf(" %lld | %lld | %.4f | %lld | %lld | %.3f | %.0f |\n", (long long)one.lattices, (long long)one.pieces,
           t_one, (long long)all.lattices, (long long)all.pieces, t_all, peak_rss_mib());
    return 0;
}

/* ---- plans ------------------------------------------------------------------------ */

/* Lattices a section holds: sent, received and local. */
static int64_t section_lattices(const rl_section *s) { return s->nsend_spans + s->nrecv_spans + s->nlocal; }

/* Plans the move for rank 0 alone (whole = 0) or for every rank. */
static int run_plan(const move *mv, int whole)
{
    relay_layout *la, *lb;
    if (make_layouts(mv, &la, &lb)) return fail("layouts");
    relay_plan *p;
    relay_op op = RELAY_OP_N;
    const relay_layout *dst = la, *src = lb;
    double t0 = now();
    relay_status st = whole ? relay_plan_transform_batch(&p, mv->P, 1, &dst, &src, &op, RELAY_DOUBLE, NULL)
                            : relay_plan_transform_rank(&p, 0, mv->P, 1, &dst, &src, &op, RELAY_DOUBLE, NULL);
    double t = now() - t0;
    relay_layout_free(la);
    relay_layout_free(lb);
    if (st) return fail(whole ? "relay_plan_transform_batch" : "relay_plan_transform_rank");
    int64_t lattices = 0;
    for (int r = 0; r < mv->P; r++)
        if (p->sections[r]) lattices += section_lattices(p->sections[r]);
    printf("| n | ranks | blocks | planned | lattices held | s | peak RSS MiB |\n|---|---|---|---|---|---|---|\n");
    print_move(mv);
    printf(" %s | %lld | %.3f | %.0f |\n", whole ? "every rank (relay_plan_transform_batch)"
                                                 : "rank 0 (relay_plan_transform_rank)",
           (long long)lattices, t, peak_rss_mib());
    relay_plan_free(p);
    return 0;
}

/* ---- arguments ---------------------------------------------------------------------- */

static move parse_move(char **argv)
{
    move mv = {atoll(argv[0]), atoi(argv[1]), 0, 0, atoll(argv[2]), atoll(argv[3])};
    mv.pr = near_square_rows(mv.P > 0 ? mv.P : 1);
    mv.pc = mv.P / mv.pr;
    return mv;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--fig3") == 0)
        return run_lattices(&(move){100000, 100, 10, 10, atoll(argv[2]), 10000});
    int planning = argc == 6 && (strcmp(argv[1], "--rank-plan") == 0 || strcmp(argv[1], "--plan") == 0);
    if (argc == 5 && argv[1][0] != '-') {
        move mv = parse_move(argv + 1);
        return run_lattices(&mv);
    }
    if (planning) {
        move mv = parse_move(argv + 2);
        return run_plan(&mv, strcmp(argv[1], "--plan") == 0);
    }
    fprintf(stderr, "usage: lattice_scale N P FROM TO | lattice_scale --fig3 B\n"
                    "       lattice_scale --rank-plan N P FROM TO | lattice_scale --plan N P FROM TO\n");
    return 2;
}
