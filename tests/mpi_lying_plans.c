/* mpi_lying_plans.c — plans read from bytes that lie consistently are
 * refused at bind, and plans that tell the truth
 * still replay right.
 *
 * Each case plans A := op(B), encodes and decodes the plan (so that it
 * counts as read from bytes), then lies the way a hostile or damaged file
 * can while every section stays valid by the bounds checks
 * (rl_section_validate): in rank 0's section a local piece shifted, two
 * local pieces swapped, one written twice, one dropped, two receive
 * lattices swapped (or one shifted), two send lattices swapped, under a
 * memory cap a receive lattice split in two (which packs alike uncapped
 * but is cut into other chunks); in the header (on every rank) the op
 * switched, or sigma changed with the sections' sizes adjusted.
 * relay_exec_create must fail on every rank, and some rank must say what is
 * wrong ("does not match its header", or the sections "disagree").
 *
 * Messages that travel direct (run by run from B into A, or read from the
 * peer's B under RELAY_PULL) get one end described otherwise while what
 * the message carries and its packed order stay: a lattice
 * split at one end, across its pieces or across its one piece's columns;
 * rank 1's receive lattice over A's two consecutive packed blocks fused
 * into one stack.  Each must be refused on every rank, or bind everywhere
 * and replay right: never a wait on a transfer the other end does not
 * start, never an element where another belongs (before the fix the
 * splits hung and the fused stack replayed wrong elements).
 *
 * Valid decoded plans of block-cyclic and grid layouts, ops N and T,
 * capped and not, direct messages among them, must bind and give every
 * element of A.  Run at 1, 2, 3 and 4 ranks, and with RELAY_PULL=all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "plan_internal.h"
#include "redescribe.h"
#include "relay/relay.h"

static int rank, nranks;

/* ---- plans read from bytes ------------------------------------------- */

enum { M = 30 }; /* A is M x M, so that switching the op keeps the shapes */

/* A block-cyclic layout over every rank: a 1 x P grid of mb x nb blocks. */
static relay_layout *row_of_blocks(int64_t mb, int64_t nb)
{
    relay_layout *l = NULL;
    relay_layout_block_cyclic(&l, M, M, mb, nb, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    return l;
}

/* A grid layout of nbr x nbc blocks dealt round the ranks (from rank
 * 1 + shift), each stored at a leading dimension 2 above its rows, with a
 * gap of 3 after it: every piece has room to be shifted by one, and no two
 * blocks touch. */
static relay_layout *padded_blocks(int nbr, const int64_t *rows, int nbc, const int64_t *cols, int shift)
{
    int64_t offsets[25], lds[25], next[8] = {0};
    int owners[25];
    for (int b = 0; b < nbr * nbc; b++) {
        int i = b / nbc, j = b % nbc;
        owners[b] = (b * 5 + 1 + shift) % nranks;
        lds[b] = rows[i + 1] - rows[i] + 2;
        offsets[b] = next[owners[b]];
        next[owners[b]] += (cols[j + 1] - cols[j]) * lds[b] + 3;
    }
    relay_layout *l = NULL;
    relay_layout_grid(&l, nranks, M, M, nbr, rows, nbc, cols, owners, offsets, lds, RELAY_COL_MAJOR);
    return l;
}

/* 3 x 2 blocks, some of one shape (a rank with several holds twins). */
static relay_layout *padded_grid(void)
{
    int64_t rows[] = {0, 10, 20, M}, cols[] = {0, 12, M};
    return padded_blocks(3, rows, 2, cols, 0);
}

/* 5 x 5 blocks of 6 x 6: between two of these every piece is square, so
 * switching the op keeps every lattice inside its buffers, and the
 * off-diagonal blocks make the switch a lie even on one rank. */
static relay_layout *square_blocks(int shift)
{
    int64_t splits[] = {0, 6, 12, 18, 24, M};
    return padded_blocks(5, splits, 5, splits, shift);
}

/* PHASE_N x PHASE_N in mb x mb blocks on a P x 1 grid.  From 2 x 2 blocks
 * to 16 x 16, a rank's local lattices are phases of one pattern (pieces
 * 2 rows high, 16P rows apart, the next lattice 2P rows on in B), which
 * the executor moves together (transform_pack.c); at PHASE_N = 300 the
 * last phase of rank 0 has a band fewer than the first. */
enum { PHASE_N = 300 };
static relay_layout *column_of_blocks(int64_t mb)
{
    relay_layout *l = NULL;
    relay_layout_block_cyclic(&l, PHASE_N, PHASE_N, mb, mb, nranks, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    return l;
}

static relay_plan *decoded_plan(const relay_layout *a, const relay_layout *b, relay_op op, int64_t cap)
{
    return redescribe_decoded_plan(nranks, a, b, op, cap);
}

/* ---- truthful plans still replay ---------------------------------------- */

static double value(int64_t i, int64_t j) { return (double)(i * 1000 + j); }

/* B(i, j) = value(i, j) on this rank; then A must hold op(B), after each
 * of two replays. */
static int replays_right(const relay_plan *p, const relay_layout *a, const relay_layout *b, relay_op op)
{
    int64_t rows = relay_layout_rows(a), cols = relay_layout_cols(a);
    double *abuf = calloc((size_t)relay_layout_local_elems(a, rank) + 1, sizeof *abuf);
    double *bbuf = calloc((size_t)relay_layout_local_elems(b, rank) + 1, sizeof *bbuf);
    int r, ok = 1;
    int64_t k;
    for (int64_t i = 0; i < relay_layout_rows(b); i++)
        for (int64_t j = 0; j < relay_layout_cols(b); j++)
            if (relay_layout_locate(b, i, j, &r, &k) == RELAY_OK && r == rank) bbuf[k] = value(i, j);
    relay_exec *e = NULL;
    void *dst[1] = {abuf};
    const void *src[1] = {bbuf};
    ok = relay_exec_create(&e, p, MPI_COMM_WORLD) == RELAY_OK;
    for (int replay = 0; ok && replay < 2; replay++) {
        ok = relay_exec_run(e, dst, src, NULL, NULL) == RELAY_OK;
        for (int64_t i = 0; ok && i < rows; i++)
            for (int64_t j = 0; ok && j < cols; j++)
                if (relay_layout_locate(a, i, j, &r, &k) == RELAY_OK && r == rank)
                    ok = abuf[k] == (op == RELAY_OP_N ? value(i, j) : value(j, i));
    }
    relay_exec_free(e);
    free(abuf);
    free(bbuf);
    return ok;
}

static void test_truthful_plans_replay(void)
{
    relay_layout *bc3 = row_of_blocks(3, 5), *bc4 = row_of_blocks(4, 2), *grid = padded_grid();
    const relay_layout *pairs[][2] = {{bc3, bc4}, {grid, bc4}, {bc3, grid}};
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < 4; t++) {
            relay_op op = t % 2 ? RELAY_OP_T : RELAY_OP_N;
            relay_plan *p = decoded_plan(pairs[c][0], pairs[c][1], op, t < 2 ? 0 : 80); /* uncapped, capped */
            check(p && p->from_bytes && replays_right(p, pairs[c][0], pairs[c][1], op),
                  "a truthful decoded plan binds and replays right");
            relay_plan_free(p);
        }
    relay_layout_free(bc3);
    relay_layout_free(bc4);
    relay_layout_free(grid);
}

/* ---- lies in rank 0's section ------------------------------------------ */

static int same_shape(const rl_local_span *x, const rl_local_span *y)
{
    return x->pair == y->pair && x->rows == y->rows && x->cols == y->cols && x->count_r == y->count_r &&
           x->count_c == y->count_c && x->dst_ld == y->dst_ld && x->dst_off != y->dst_off;
}

/* Splits a local lattice of an even column count into two lattices of
 * half the columns each (a truthful change, op N); 0 if none has one. */
static int split_local(rl_section *s)
{
    for (int64_t x = 0; x < s->nlocal; x++) {
        rl_local_span *l = &s->local[x];
        if (l->cols % 2) continue;
        rl_local_span *more = realloc(s->local, (size_t)(s->nlocal + 1) * sizeof *more);
        if (!more) return 0;
        s->local = more;
        l = &s->local[x];
        l->cols /= 2;
        rl_local_span half = *l;
        half.src_off += l->cols * l->src_ld;
        half.dst_off += l->cols * l->dst_ld;
        s->local[s->nlocal++] = half;
        return 1;
    }
    return 0;
}

/* Finds two local lattices of one shape, splitting one if none are; 0 if
 * that fails. */
static int twin_locals(rl_section *s, int64_t *x, int64_t *y)
{
    for (int tries = 0; tries < 2; tries++) {
        for (*x = 0; *x < s->nlocal; (*x)++)
            for (*y = *x + 1; *y < s->nlocal; (*y)++)
                if (same_shape(&s->local[*x], &s->local[*y])) return 1;
        if (!split_local(s)) return 0;
    }
    return 0;
}

/* A lattice one element off in A, up or down, whichever stays in bounds. */
static int shift_offset(const relay_plan *p, rl_section *s, int64_t *off)
{
    for (int d = -1; d <= 1; d += 2) {
        *off += d;
        if (*off >= 0 && rl_section_validate(s, p) == RELAY_OK) return 1;
        *off -= d;
    }
    return 0;
}

static int shift_local(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)a;
    return s->nlocal > 0 && shift_offset(p, s, &s->local[0].dst_off);
}

static int swap_locals(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    int64_t x, y;
    if (!twin_locals(s, &x, &y)) return 0;
    int64_t off = s->local[x].dst_off;
    s->local[x].dst_off = s->local[y].dst_off;
    s->local[y].dst_off = off;
    return 1;
}

/* One lattice written where its twin writes: those elements twice. */
static int duplicate_local(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    int64_t x, y;
    if (!twin_locals(s, &x, &y)) return 0;
    s->local[y].dst_off = s->local[x].dst_off;
    s->local[y].dst_step_r = s->local[x].dst_step_r;
    s->local[y].dst_step_c = s->local[x].dst_step_c;
    return 1;
}

static int drop_local(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    if (s->nlocal == 0) return 0;
    s->nlocal--;
    if (s->nlocal == 0) s->local_round = -1;
    return 1;
}

/* The last local lattice's last band dropped: among phases moved together
 * (column_of_blocks), a later phase of fewer bands than the first. */
static int drop_last_band(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    if (s->nlocal < 2 || s->local[s->nlocal - 1].count_r < 2) return 0;
    s->local[s->nlocal - 1].count_r--;
    return 1;
}

/* The first local lattice split across its columns (a truthful change):
 * the section is no longer the planner's, so it is checked element by
 * element, the phases after it still moved together, the last of them
 * (at 2 and 3 ranks) with a band fewer than the first. */
static int split_first_local(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    return split_local(s);
}

/* Two lattices of one message, of one shape, trade places in the buffer;
 * 0 if no message has two. */
static int swap_twin_lattices(const rl_message *msg, int nmsg, rl_span *spans)
{
    for (int k = 0; k < nmsg; k++)
        for (int64_t x = msg[k].first; x < msg[k].first + msg[k].count; x++)
            for (int64_t y = x + 1; y < msg[k].first + msg[k].count; y++) {
                rl_span *u = &spans[x], *v = &spans[y];
                if (u->pair == v->pair && u->rows == v->rows && u->cols == v->cols && u->count_r == v->count_r &&
                    u->count_c == v->count_c && u->ld == v->ld && u->fused == v->fused && u->off != v->off) {
                    int64_t off = u->off;
                    u->off = v->off;
                    v->off = off;
                    return 1;
                }
            }
    return 0;
}

/* Into A: the receiver writes elements where others belong. */
static int swap_receives(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)a;
    return swap_twin_lattices(s->recv, s->nrecv, s->recv_spans) ||
           (s->nrecv_spans > 0 && shift_offset(p, s, &s->recv_spans[0].off));
}

/* Out of B (or one lattice shifted there): elements read from B travel to
 * the wrong places in their message, which only the receiver's section
 * knows; the peers' comparison of hashes tells. */
static int swap_sends(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)a;
    return swap_twin_lattices(s->send, s->nsend, s->send_spans) ||
           (s->nsend_spans > 0 && shift_offset(p, s, &s->send_spans[0].off));
}

/* Under a memory cap: a receive lattice split in two, at a piece column
 * or at a column of its one piece.  Uncapped the message packs as before,
 * so the elements' hashes still agree; but the two ends would cut the
 * message into chunks by different shapes, which binding must refuse. */
static int split_receive(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    return redescribe_split_receive(s, REDESCRIBE_ANY);
}

/* ---- one end of a direct message described otherwise -------------------- */

/* Re-descriptions that keep what a message carries and its packed order
 * (redescribe.h), so that binding's check passes; under p2p both ends must
 * still agree on how the message travels (direct, run by run, or packed),
 * else one waits for a transfer the other never starts. */
static int split_receive_across_pieces(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    return redescribe_split_receive(s, REDESCRIBE_PIECE_COLUMNS);
}

static int split_receive_columns(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    return redescribe_split_receive(s, REDESCRIBE_COLUMNS);
}

static int split_send_across_pieces(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    return redescribe_split_send(s, REDESCRIBE_PIECE_COLUMNS);
}

static int split_send_columns(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)p;
    (void)a;
    return redescribe_split_send(s, REDESCRIBE_COLUMNS);
}

static int fuse_across_blocks(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)a;
    return redescribe_fuse_across_blocks(p, s);
}

/* ---- lies in the header (every rank's copy) ------------------------------ */

static int switch_op(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)s;
    (void)a;
    p->pairs[0].op = p->pairs[0].op == RELAY_OP_N ? RELAY_OP_T : RELAY_OP_N;
    return 1;
}

/* Ranks 0 and 1 trade A's blocks in the header; every section declares the
 * sizes the new relabeling implies. */
static int change_sigma(relay_plan *p, rl_section *s, const relay_layout *a)
{
    (void)s;
    if (p->nranks < 2) return 0;
    int32_t t = p->sigma[0];
    p->sigma[0] = p->sigma[1];
    p->sigma[1] = t;
    relay_layout *relabeled = NULL;
    if (rl_layout_relabel(&relabeled, a, p->sigma, p->nranks) != RELAY_OK) return 0;
    relay_layout_free(p->pairs[0].dst_relabeled);
    p->pairs[0].dst_relabeled = relabeled;
    for (int r = 0; r < p->nranks; r++) p->sections[r]->dst_elems[0] = relay_layout_local_elems(relabeled, r);
    return 1;
}

/* ---- every lie refused everywhere ------------------------------------------ */

typedef int (*lie)(relay_plan *p, rl_section *s, const relay_layout *a);

/* The layouts A and B a lie is told on. */
typedef enum {
    ON_ROWS_OF_BLOCKS,   /* 3 x 5 and 4 x 2 blocks on 1 x P grids */
    ON_PADDED_GRID,      /* A padded_grid, B 4 x 2 blocks on 1 x P: room to shift */
    ON_SQUARE_BLOCKS,    /* square_blocks, shifted by one rank */
    ON_COLUMN_BLOCKS,    /* direct_columns 8 and 12: messages travel direct, lattices of several pieces */
    ON_WIDE_COLUMNS,     /* direct_columns 16 and 48: direct messages of one piece */
    ON_STACKED_BLOCKS,   /* stacked_in_two and stacked_in_one: a direct message across A's blocks */
    ON_PHASES,           /* column_of_blocks 16 and 2: local lattices that are phases of one pattern */
    LIE_LAYOUTS
} lie_layouts;

/* What must come of a lie: refused on every rank with a reason, or that
 * or (a re-description that keeps the meaning) a replay that is right, or
 * (a re-description the element check must accept) a replay that is right. */
typedef enum { REFUSED, REFUSED_OR_RIGHT, RIGHT } outcome;

typedef struct {
    const char *name;
    lie tell;        /* on rank `liar`'s section, or on the header */
    int min_ranks;
    lie_layouts on;
    int64_t cap;     /* the plan's memory cap, 0 for none */
    int liar;
    outcome expect;
} lie_case;

static const lie_case lies[] = {
    {"a local piece shifted", shift_local, 1, ON_PADDED_GRID, 0, 0, REFUSED},
    {"two local pieces swapped", swap_locals, 1, ON_PADDED_GRID, 0, 0, REFUSED},
    {"a local piece written twice", duplicate_local, 1, ON_PADDED_GRID, 0, 0, REFUSED},
    {"a local piece dropped", drop_local, 1, ON_PADDED_GRID, 0, 0, REFUSED},
    {"two receive lattices swapped", swap_receives, 2, ON_ROWS_OF_BLOCKS, 0, 0, REFUSED},
    {"two send lattices swapped", swap_sends, 2, ON_ROWS_OF_BLOCKS, 0, 0, REFUSED},
    {"the op switched", switch_op, 1, ON_SQUARE_BLOCKS, 0, 0, REFUSED},
    {"sigma changed, sizes adjusted", change_sigma, 2, ON_ROWS_OF_BLOCKS, 0, 0, REFUSED},
    {"a receive lattice split in two under a memory cap", split_receive, 2, ON_ROWS_OF_BLOCKS, 80, 0, REFUSED},
    {"a direct receive lattice split across its pieces", split_receive_across_pieces, 2, ON_COLUMN_BLOCKS, 0, 0,
     REFUSED_OR_RIGHT},
    {"a direct receive lattice split across its piece's columns", split_receive_columns, 2, ON_WIDE_COLUMNS, 0, 0,
     REFUSED_OR_RIGHT},
    {"a direct send lattice split across its pieces", split_send_across_pieces, 2, ON_COLUMN_BLOCKS, 0, 0,
     REFUSED_OR_RIGHT},
    {"a direct send lattice split across its piece's columns", split_send_columns, 2, ON_WIDE_COLUMNS, 0, 0,
     REFUSED_OR_RIGHT},
    {"rank 1's receive lattice fused across A's two packed blocks", fuse_across_blocks, 2, ON_STACKED_BLOCKS, 0, 1,
     REFUSED_OR_RIGHT},
    {"a band of a later local phase dropped", drop_last_band, 2, ON_PHASES, 0, 0, REFUSED},
    {"the first local phase split across its columns", split_first_local, 2, ON_PHASES, 0, 0, RIGHT},
};

/* Whether this rank's message says what is wrong, or that another rank failed. */
static int named(const char *msg, int *says_why)
{
    *says_why = strstr(msg, "does not match its header") != NULL || strstr(msg, "disagree") != NULL;
    return *says_why || strstr(msg, "another rank") != NULL;
}

static void refused_everywhere(const lie_case *c, relay_layout *a, relay_layout *b)
{
    char what[200];
    relay_plan *p = decoded_plan(a, b, RELAY_OP_N, c->cap);
    int told = c->tell(p, p->sections[c->liar], a);
    snprintf(what, sizeof what, "%s: the lie applies (rank %d's section, or the header)", c->name, c->liar);
    check(told, what);
    snprintf(what, sizeof what, "%s: this rank's section is still valid alone", c->name);
    check(rl_section_validate(p->sections[rank], p) == RELAY_OK, what);
    relay_exec *e = NULL;
    relay_status st = relay_exec_create(&e, p, MPI_COMM_WORLD);
    int says_why, any_says_why, refused = st != RELAY_OK, all_refused, any_refused;
    int ok = refused && e == NULL && named(relay_last_error(), &says_why);
    MPI_Allreduce(&says_why, &any_says_why, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    MPI_Allreduce(&refused, &all_refused, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&refused, &any_refused, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0 && getenv("RELAY_TEST_VERBOSE")) printf("%s: %s\n", c->name, refused ? relay_last_error() : "bound");
    relay_exec_free(e);
    if (c->expect == RIGHT) {
        snprintf(what, sizeof what, "%s: binds on every rank and replays right", c->name);
        check(!any_refused && replays_right(p, a, b, RELAY_OP_N), what);
    } else if (c->expect == REFUSED_OR_RIGHT && !any_refused) {
        snprintf(what, sizeof what, "%s: bound on every rank, so it replays right", c->name);
        check(replays_right(p, a, b, RELAY_OP_N), what);
    } else {
        snprintf(what, sizeof what, "%s: relay_exec_create fails on every rank, and a rank says why", c->name);
        check(ok && all_refused && any_says_why, what);
    }
    relay_plan_free(p);
}

static relay_layout *direct_columns(int64_t nb) { return redescribe_direct_columns(nranks, nb); }

static relay_layout *stacked(int blocks, int owner) { return redescribe_stacked(nranks, blocks, owner); }

static void test_lies_are_refused(void)
{
    relay_layout *a[LIE_LAYOUTS] = {row_of_blocks(3, 5), padded_grid(),     square_blocks(0),
                                    direct_columns(8),  direct_columns(16), nranks > 1 ? stacked(2, 1) : NULL,
                                    column_of_blocks(16)};
    relay_layout *b[LIE_LAYOUTS] = {row_of_blocks(4, 2), row_of_blocks(4, 2), square_blocks(1),
                                    direct_columns(12), direct_columns(48), nranks > 1 ? stacked(1, 0) : NULL,
                                    column_of_blocks(2)};
    for (size_t k = 0; k < sizeof lies / sizeof lies[0]; k++)
        if (nranks >= lies[k].min_ranks) refused_everywhere(&lies[k], a[lies[k].on], b[lies[k].on]);
    for (int on = 0; on < LIE_LAYOUTS; on++) {
        relay_layout_free(a[on]);
        relay_layout_free(b[on]);
    }
}

/* Whether some message of p travels direct (or, under RELAY_PULL, is
 * pulled): tuning times p2p with every message packed as a choice of its
 * own exactly then. */
static int travels_direct(relay_plan *p)
{
    relay_tuning t;
    int packed = 0;
    if (relay_exec_tune(p, MPI_COMM_WORLD, 1) != RELAY_OK || relay_plan_tuning(p, &t) != RELAY_OK) return 0;
    for (int k = 0; k < t.ntimed; k++) packed |= t.choices[k].packed;
    relay_plan_set_tuning(p, NULL);
    return packed;
}

/* The truthful plans of whole columns travel direct, and every truthful
 * plan here replays right. */
static void test_direct_plans_replay(void)
{
    if (nranks < 2) return;
    relay_layout *a[3] = {direct_columns(8), direct_columns(16), stacked(2, 1)};
    relay_layout *b[3] = {direct_columns(12), direct_columns(48), stacked(1, 0)};
    for (int c = 0; c < 3; c++) {
        relay_plan *p = decoded_plan(a[c], b[c], RELAY_OP_N, 0);
        /* (The stacked plan's message cannot: its pieces stack in B only.) */
        if (c < 2) check(p && travels_direct(p), "a truthful decoded plan of whole columns travels direct");
        check(p && replays_right(p, a[c], b[c], RELAY_OP_N), "a truthful decoded plan of direct messages replays right");
        relay_plan_free(p);
        relay_layout_free(a[c]);
        relay_layout_free(b[c]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    test_truthful_plans_replay();
    test_direct_plans_replay();
    test_lies_are_refused();
    int status = check_summary("mpi_lying_plans");
    MPI_Finalize();
    return status;
}
