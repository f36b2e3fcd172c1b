/* reshape.c — ReSHAPE's contention-free schedule for block-cyclic resizing
 * (Sudarsan and Ribbens, section 3.3).
 *
 * A matrix of mb x nb blocks moves from a Pr x Pc grid (P ranks) to a
 * Qr x Qc grid (Q ranks), both numbered row-major from rank 0 with the first
 * block on rank 0: block (x, y) goes from rank Pc*(x%Pr) + y%Pc to rank
 * Qc*(x%Qr) + y%Qc.  The pattern repeats every superblock of
 * R = lcm(Pr, Qr) by C = lcm(Pc, Qc) blocks, so one R x C table describes
 * the whole move:
 *   IDPC(i, j)  the source rank of cell (i, j),
 *   FDPC(i, j)  its destination rank (PM, the processor mapping, starts as
 *               a copy of it),
 *   shifts      when Pr > Qr or Pc > Qc the paper's cases 1-3 rotate rows
 *               (by Pc*i within groups of Pr rows) and/or columns (by Pr*j
 *               within groups of Pc columns) of IDPC and PM alike, which
 *               reorders the traversal without changing any cell's pair,
 *   C_Transfer  PM traversed row-major, each cell appended to its source's
 *               column: row s is step s, (R*C)/P steps; a cell whose
 *               destination is its source is that rank's local copy,
 *   C_Recv      C_Recv(s, C_Transfer(s, p)) = p, well defined exactly when
 *               no rank receives twice in a step (contention-free).
 * Within a superblock a source's cells all have distinct destinations, so
 * a cell is one (source, destination) pair and its message carries that
 * cell's blocks of every superblock: one message per step per rank.
 *
 * The table is used as the rounds schedule when it is contention-free and
 * covers the plan's transfers (schedule.c's graph, from the volumes); otherwise (shrinking, where ranks
 * must receive more cells than there are steps, or a table with contention)
 * the planner falls back to the minimum-step colouring of schedule.c. */
#include <string.h>

#include "error.h"
#include "planner_internal.h"

static int64_t gcd(int64_t a, int64_t b) { return b ? gcd(b, a % b) : a; }
static int64_t lcm(int64_t a, int64_t b) { return a / gcd(a, b) * b; }

/* The paper's setting: one pair, op N, two block-cyclic layouts with the
 * same blocks, row-major grid numbering, first block on rank 0 at the
 * matrix's origin, identity relabeling. */
static int reshape_applies(const relay_plan *p, rl_block_cyclic *from, rl_block_cyclic *to)
{
    if (p->count != 1 || p->pairs[0].op != RELAY_OP_N) return 0;
    const relay_layout *a = p->pairs[0].dst, *b = p->pairs[0].src;
    if (a->kind != RL_LAYOUT_BLOCK_CYCLIC || b->kind != RL_LAYOUT_BLOCK_CYCLIC) return 0;
    for (int r = 0; r < p->nranks; r++)
        if (p->sigma[r] != r) return 0;
    *from = b->bc;
    *to = a->bc;
    return from->mb == to->mb && from->nb == to->nb && from->grid_order == RELAY_ROW_MAJOR &&
           to->grid_order == RELAY_ROW_MAJOR && !from->rsrc && !from->csrc && !to->rsrc && !to->csrc && !from->i0 &&
           !from->j0 && !to->i0 && !to->j0;
}

/* Rotates row `row` of an R x C table right by `by` cells. */
static void rotate_row(int32_t *t, int64_t C, int64_t row, int64_t by, int32_t *tmp)
{
    for (int64_t j = 0; j < C; j++) tmp[(j + by) % C] = t[row * C + j];
    memcpy(t + row * C, tmp, (size_t)C * sizeof *t);
}

/* Rotates column `col` of an R x C table down by `by` cells. */
static void rotate_col(int32_t *t, int64_t R, int64_t C, int64_t col, int64_t by, int32_t *tmp)
{
    for (int64_t i = 0; i < R; i++) tmp[(i + by) % R] = t[i * C + col];
    for (int64_t i = 0; i < R; i++) t[i * C + col] = tmp[i];
}

/* Cases 1-3: column shifts when Pc > Qc (cases 2 and 3), then row shifts
 * when Pr > Qr (cases 1 and 3), on IDPC and PM alike. */
static void shift_tables(int32_t *idpc, int32_t *pm, const rl_reshape *rs, int32_t *tmp)
{
    int64_t R = rs->R, C = rs->C, Pr = rs->pr, Pc = rs->pc;
    if (Pc > rs->qc)
        for (int64_t j = 0; j < C; j++)
            if (j % Pc) {
                rotate_col(idpc, R, C, j, Pr * (j % Pc) % R, tmp);
                rotate_col(pm, R, C, j, Pr * (j % Pc) % R, tmp);
            }
    if (Pr > rs->qr)
        for (int64_t i = 0; i < R; i++)
            if (i % Pr) {
                rotate_row(idpc, C, i, Pc * (i % Pr) % C, tmp);
                rotate_row(pm, C, i, Pc * (i % Pr) % C, tmp);
            }
}

void rl_reshape_free(rl_reshape *rs)
{
    if (!rs) return;
    free(rs->transfer);
    free(rs);
}

relay_status rl_reshape_table(rl_reshape **out, int pr, int pc, int qr, int qc)
{
    rl_reshape *rs = calloc(1, sizeof *rs);
    if (!rs) return RL_NOMEM();
    *rs = (rl_reshape){pr, pc, qr, qc, lcm(pr, qr), lcm(pc, qc), 0, NULL, 0, 0, 1};
    int64_t cells = rs->R * rs->C, P = (int64_t)pr * pc;
    rs->steps = cells / P;
    int32_t *idpc = rl_malloc_array((size_t)cells, sizeof *idpc), *pm = rl_malloc_array((size_t)cells, sizeof *pm);
    int32_t *tmp = rl_malloc_array((size_t)(rs->R > rs->C ? rs->R : rs->C), sizeof *tmp);
    int64_t *next = rl_calloc((size_t)P, sizeof *next);
    rs->transfer = rl_malloc_array((size_t)(rs->steps * P), sizeof *rs->transfer);
    relay_status st = !idpc || !pm || !tmp || !next || !rs->transfer ? RL_NOMEM() : RELAY_OK;
    for (int64_t i = 0; !st && i < rs->R; i++)
        for (int64_t j = 0; j < rs->C; j++) {
            idpc[i * rs->C + j] = (int32_t)(pc * (i % pr) + j % pc);
            pm[i * rs->C + j] = (int32_t)(qc * (i % qr) + j % qc);
        }
    if (!st) shift_tables(idpc, pm, rs, tmp);
    for (int64_t c = 0; !st && c < cells; c++) {
        int32_t src = idpc[c], dst = pm[c];
        rs->transfer[next[src]++ * P + src] = dst;
        if (dst == src) rs->copies++;
        else rs->sends++;
    }
    rs->contention_free = !st && rl_reshape_contention_free(rs);
    free(idpc);
    free(pm);
    free(tmp);
    free(next);
    if (st) {
        rl_reshape_free(rs);
        return st;
    }
    *out = rs;
    return RELAY_OK;
}

int rl_reshape_contention_free(const rl_reshape *rs)
{
    int64_t P = (int64_t)rs->pr * rs->pc, Q = (int64_t)rs->qr * rs->qc, n = P > Q ? P : Q;
    char *busy = rl_calloc((size_t)n, 1);
    int ok = busy != NULL;
    for (int64_t s = 0; ok && s < rs->steps; s++) {
        memset(busy, 0, (size_t)n);
        for (int64_t p = 0; ok && p < P; p++) {
            int32_t q = rs->transfer[s * P + p];
            ok = !busy[q];
            busy[q] = 1;
        }
    }
    free(busy);
    return ok;
}

/* Gives every transfer of the plan its C_Transfer step; returns 0 (and
 * leaves the plan for the colouring) if the table does not cover the
 * plan's transfers exactly. */
static int apply_table(rl_transfers *t, const rl_reshape *rs)
{
    int64_t P = (int64_t)rs->pr * rs->pc, assigned = 0;
    for (int64_t e = 0; e < t->start[t->n]; e++) t->step[e] = -1;
    for (int64_t step = 0; step < rs->steps; step++)
        for (int64_t src = 0; src < P && src < t->n; src++) {
            int64_t e = rl_transfer_find(t, (int)src, rs->transfer[step * P + src]);
            if (e < 0) continue; /* a cell with no blocks in a partial matrix */
            if (t->step[e] >= 0) return 0; /* a transfer twice: not the paper's table */
            t->step[e] = step;
            assigned++;
        }
    return assigned == t->start[t->n];
}

relay_status rl_reshape_schedule(relay_plan *p, rl_transfers *t, int *applied)
{
    rl_block_cyclic from, to;
    *applied = 0;
    if (!reshape_applies(p, &from, &to)) return RELAY_OK;
    rl_reshape *rs;
    relay_status st = rl_reshape_table(&rs, from.nprow, from.npcol, to.nprow, to.npcol);
    if (st) return st;
    if (rs->contention_free && rs->steps <= p->nranks && apply_table(t, rs)) {
        p->rounds = (int32_t)rs->steps;
        *applied = 1;
    }
    rl_reshape_free(rs);
    return RELAY_OK;
}
