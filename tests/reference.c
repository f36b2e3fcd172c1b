/* reference.c — the independent serial reference of the relay tests: ScaLAPACK
 * index arithmetic, reference layouts, a seeded PRNG with random layout
 * generators, exact value functions and the serial transform.  See reference.h. */
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "reference: out of memory (%zu bytes)\n", bytes);
        abort();
    }
    return p;
}

static void *xmemdup(const void *src, size_t bytes)
{
    return memcpy(xmalloc(bytes), src, bytes);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static const char *order_name(relay_order o) { return o == RELAY_ROW_MAJOR ? "row" : "col"; }

/* ---- ScaLAPACK index arithmetic -------------------------------------------------- */

int64_t ref_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs)
{
    int mydist = (nprocs + iproc - isrc) % nprocs;
    int64_t nblocks = n / nb;
    int64_t num = (nblocks / nprocs) * nb;
    int64_t extrablocks = nblocks % nprocs;
    if (mydist < extrablocks)
        num += nb;
    else if (mydist == extrablocks)
        num += n % nb;
    return num;
}

int ref_indxg2p(int64_t g, int64_t nb, int isrc, int nprocs)
{
    return (int)((isrc + g / nb) % nprocs);
}

int64_t ref_indxg2l(int64_t g, int64_t nb, int nprocs)
{
    return nb * (g / (nb * nprocs)) + g % nb;
}

int ref_grid_rank(relay_order grid_order, int nprow, int npcol, int pr, int pc)
{
    return grid_order == RELAY_ROW_MAJOR ? pr * npcol + pc : pc * nprow + pr;
}

/* ---- reference layouts ----------------------------------------------------------- */

static int64_t block_rows(const ref_layout *l, int bi) { return l->row_splits[bi + 1] - l->row_splits[bi]; }
static int64_t block_cols(const ref_layout *l, int bj) { return l->col_splits[bj + 1] - l->col_splits[bj]; }

/* Index of element (r, c) of block b relative to the start of its rank's buffer. */
static int64_t block_elem_index(const ref_layout *l, int b, int64_t r, int64_t c)
{
    return l->order == RELAY_COL_MAJOR ? l->offsets[b] + r + c * l->lds[b]
                                       : l->offsets[b] + r * l->lds[b] + c;
}

/* The lld ScaLAPACK uses on process (pr, pc). */
static int64_t bc_local_ld(const ref_bc_params *p, int pr, int pc)
{
    if (p->lld > 0)
        return p->lld;
    if (p->elem_order == RELAY_COL_MAJOR)
        return max64(1, ref_numroc(p->m, p->mb, pr, p->rsrc, p->nprow));
    return max64(1, ref_numroc(p->n, p->nb, pc, p->csrc, p->npcol));
}

/* Local storage index of local element (lr, lc) with leading dimension ld. */
static int64_t local_index(relay_order order, int64_t lr, int64_t lc, int64_t ld)
{
    return order == RELAY_COL_MAJOR ? lr + lc * ld : lr * ld + lc;
}

static int64_t *regular_splits(int64_t extent, int64_t bs, int *nblocks)
{
    *nblocks = (int)((extent + bs - 1) / bs);
    int64_t *s = xmalloc(sizeof *s * (size_t)(*nblocks + 1));
    for (int b = 0; b <= *nblocks; b++)
        s[b] = b * bs < extent ? b * bs : extent;
    return s;
}

static void allocate_blocks(ref_layout *l)
{
    size_t nblocks = (size_t)l->nbr * (size_t)l->nbc;
    l->owners = xmalloc(sizeof *l->owners * nblocks);
    l->offsets = xmalloc(sizeof *l->offsets * nblocks);
    l->lds = xmalloc(sizeof *l->lds * nblocks);
}

void ref_layout_block_cyclic(ref_layout *out, const ref_bc_params *p)
{
    ref_layout *l = out;
    memset(l, 0, sizeof *l);
    l->kind = REF_BLOCK_CYCLIC;
    l->bc = *p;
    l->nranks = p->nprow * p->npcol;
    l->m = p->m;
    l->n = p->n;
    l->order = p->elem_order;
    l->row_splits = regular_splits(p->m, p->mb, &l->nbr);
    l->col_splits = regular_splits(p->n, p->nb, &l->nbc);
    allocate_blocks(l);
    for (int bi = 0; bi < l->nbr; bi++) {
        for (int bj = 0; bj < l->nbc; bj++) {
            int64_t gi = l->row_splits[bi], gj = l->col_splits[bj];
            int pr = ref_indxg2p(gi, p->mb, p->rsrc, p->nprow);
            int pc = ref_indxg2p(gj, p->nb, p->csrc, p->npcol);
            int64_t ld = bc_local_ld(p, pr, pc);
            int b = bi * l->nbc + bj;
            l->owners[b] = ref_grid_rank(p->grid_order, p->nprow, p->npcol, pr, pc);
            l->lds[b] = ld;
            l->offsets[b] = local_index(p->elem_order, ref_indxg2l(gi, p->mb, p->nprow),
                                        ref_indxg2l(gj, p->nb, p->npcol), ld);
        }
    }
    snprintf(l->desc, sizeof l->desc,
             "bc %lldx%lld blocks %lldx%lld grid %dx%d %s src (%d,%d) lld %lld elem %s",
             (long long)p->m, (long long)p->n, (long long)p->mb, (long long)p->nb, p->nprow,
             p->npcol, p->grid_order == RELAY_ROW_MAJOR ? "R" : "C", p->rsrc, p->csrc,
             (long long)p->lld, order_name(p->elem_order));
}

/* Packed storage: each rank's blocks tightly, in increasing block index. */
static void pack_blocks(ref_layout *l)
{
    int64_t *cursor = xmalloc(sizeof *cursor * (size_t)l->nranks);
    memset(cursor, 0, sizeof *cursor * (size_t)l->nranks);
    for (int bi = 0; bi < l->nbr; bi++) {
        for (int bj = 0; bj < l->nbc; bj++) {
            int b = bi * l->nbc + bj;
            int64_t rows = block_rows(l, bi), cols = block_cols(l, bj);
            l->lds[b] = l->order == RELAY_COL_MAJOR ? rows : cols;
            l->offsets[b] = cursor[l->owners[b]];
            cursor[l->owners[b]] += rows * cols;
        }
    }
    free(cursor);
}

void ref_layout_grid(ref_layout *out, int nranks, int64_t m, int64_t n,
        int nbr, const int64_t *row_splits, int nbc, const int64_t *col_splits,
        const int *owners, const int64_t *offsets, const int64_t *lds, relay_order order)
{
    ref_layout *l = out;
    size_t nblocks = (size_t)nbr * (size_t)nbc;
    memset(l, 0, sizeof *l);
    l->kind = offsets ? REF_GRID_EXPLICIT : REF_GRID_PACKED;
    l->nranks = nranks;
    l->m = m;
    l->n = n;
    l->nbr = nbr;
    l->nbc = nbc;
    l->order = order;
    l->row_splits = xmemdup(row_splits, sizeof *row_splits * (size_t)(nbr + 1));
    l->col_splits = xmemdup(col_splits, sizeof *col_splits * (size_t)(nbc + 1));
    allocate_blocks(l);
    memcpy(l->owners, owners, sizeof *owners * nblocks);
    if (offsets) {
        memcpy(l->offsets, offsets, sizeof *offsets * nblocks);
        memcpy(l->lds, lds, sizeof *lds * nblocks);
    } else {
        pack_blocks(l);
    }
    snprintf(l->desc, sizeof l->desc, "grid %lldx%lld on %d ranks, %dx%d blocks, elem %s, %s",
             (long long)m, (long long)n, nranks, nbr, nbc, order_name(order),
             offsets ? "explicit offsets" : "packed");
}

void ref_layout_relabeled(ref_layout *out, const ref_layout *l, const int *sigma, int nranks)
{
    size_t nblocks = (size_t)l->nbr * (size_t)l->nbc;
    int *owners = xmalloc(sizeof *owners * nblocks);
    for (size_t b = 0; b < nblocks; b++)
        owners[b] = sigma[l->owners[b]];
    ref_layout_grid(out, nranks, l->m, l->n, l->nbr, l->row_splits, l->nbc, l->col_splits,
                    owners, l->offsets, l->lds, l->order);
    snprintf(out->desc, sizeof out->desc, "relabeled %.140s", l->desc);
    free(owners);
}

void ref_layout_free(ref_layout *l)
{
    free(l->row_splits);
    free(l->col_splits);
    free(l->owners);
    free(l->offsets);
    free(l->lds);
    memset(l, 0, sizeof *l);
}

/* The block containing global index g: splits[b] <= g < splits[b+1]. */
static int find_block(const int64_t *splits, int nblocks, int64_t g)
{
    int lo = 0, hi = nblocks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (splits[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Block-cyclic layouts are located element by element from ScaLAPACK's formulas,
 * independently of the block tables the rest of the reference uses. */
static void locate_block_cyclic(const ref_bc_params *p, int64_t i, int64_t j, int *rank,
                                int64_t *index)
{
    int pr = ref_indxg2p(i, p->mb, p->rsrc, p->nprow);
    int pc = ref_indxg2p(j, p->nb, p->csrc, p->npcol);
    *rank = ref_grid_rank(p->grid_order, p->nprow, p->npcol, pr, pc);
    *index = local_index(p->elem_order, ref_indxg2l(i, p->mb, p->nprow),
                         ref_indxg2l(j, p->nb, p->npcol), bc_local_ld(p, pr, pc));
}

void ref_locate(const ref_layout *l, int64_t i, int64_t j, int *rank, int64_t *index)
{
    if (l->kind == REF_BLOCK_CYCLIC) {
        locate_block_cyclic(&l->bc, i, j, rank, index);
        return;
    }
    int bi = find_block(l->row_splits, l->nbr, i);
    int bj = find_block(l->col_splits, l->nbc, j);
    int b = bi * l->nbc + bj;
    *rank = l->owners[b];
    *index = block_elem_index(l, b, i - l->row_splits[bi], j - l->col_splits[bj]);
}

int64_t ref_local_elems(const ref_layout *l, int rank)
{
    int64_t elems = 0;
    for (int bi = 0; bi < l->nbr; bi++) {
        for (int bj = 0; bj < l->nbc; bj++) {
            int b = bi * l->nbc + bj;
            if (l->owners[b] == rank)
                elems = max64(elems, block_elem_index(l, b, block_rows(l, bi) - 1,
                                                      block_cols(l, bj) - 1) + 1);
        }
    }
    return elems;
}

int64_t *ref_local_map(const ref_layout *l, int rank)
{
    int64_t size = ref_local_elems(l, rank);
    int64_t *map = xmalloc(sizeof *map * (size_t)size);
    for (int64_t k = 0; k < size; k++)
        map[k] = -1;
    for (int bi = 0; bi < l->nbr; bi++) {
        for (int bj = 0; bj < l->nbc; bj++) {
            int b = bi * l->nbc + bj;
            if (l->owners[b] != rank)
                continue;
            for (int64_t r = 0; r < block_rows(l, bi); r++)
                for (int64_t c = 0; c < block_cols(l, bj); c++)
                    map[block_elem_index(l, b, r, c)] =
                        (l->row_splits[bi] + r) * l->n + l->col_splits[bj] + c;
        }
    }
    return map;
}

relay_status ref_build_relay_block_cyclic(const ref_bc_params *p, relay_layout **out)
{
    return relay_layout_block_cyclic(out, p->m, p->n, p->mb, p->nb, p->nprow, p->npcol,
                                     p->grid_order, p->rsrc, p->csrc, p->lld, p->elem_order);
}

relay_status ref_build_relay_layout(const ref_layout *l, relay_layout **out)
{
    if (l->kind == REF_BLOCK_CYCLIC)
        return ref_build_relay_block_cyclic(&l->bc, out);
    int is_explicit = l->kind == REF_GRID_EXPLICIT;
    return relay_layout_grid(out, l->nranks, l->m, l->n, l->nbr, l->row_splits, l->nbc,
                             l->col_splits, l->owners, is_explicit ? l->offsets : NULL,
                             is_explicit ? l->lds : NULL, l->order);
}

/* ---- seeded pseudo-random numbers ------------------------------------------------ */

void ref_rng_seed(ref_rng *r, uint64_t seed)
{
    r->state = seed ^ 0x5851f42d4c957f2dULL;
}

uint64_t ref_rng_next(ref_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int64_t ref_rng_range(ref_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(ref_rng_next(r) % (uint64_t)(hi - lo + 1));
}

int ref_rng_percent(ref_rng *r, int percent)
{
    return ref_rng_range(r, 0, 99) < percent;
}

/* ---- random layouts -------------------------------------------------------------- */

int64_t *ref_random_splits(ref_rng *r, int64_t extent, int *nblocks)
{
    int64_t *s = xmalloc(sizeof *s * (size_t)(extent + 1));
    int style = (int)ref_rng_range(r, 0, 9);
    /* chance per position of a cut, in 1/1000: style 0 one block, 1 single rows */
    int64_t cut_permille = style == 0 ? 0
                         : style == 1 && extent <= 64 ? 1000
                         : ref_rng_range(r, 20, 400);
    int n = 0;
    s[n++] = 0;
    for (int64_t g = 1; g < extent; g++)
        if (ref_rng_range(r, 0, 999) < cut_permille)
            s[n++] = g;
    s[n] = extent;
    *nblocks = n;
    return s;
}

/* The largest count any process of the dimension holds. */
static int64_t max_numroc(int64_t n, int64_t nb, int isrc, int nprocs)
{
    int64_t most = 0;
    for (int p = 0; p < nprocs; p++)
        most = max64(most, ref_numroc(n, nb, p, isrc, nprocs));
    return most;
}

static int64_t random_block_size(ref_rng *r, int64_t extent)
{
    if (ref_rng_percent(r, 15))
        return extent + ref_rng_range(r, 0, 4);      /* one block spans the dimension */
    if (ref_rng_percent(r, 20))
        return ref_rng_range(r, 1, 7);               /* small blocks, from 1 upwards */
    return ref_rng_range(r, max64(1, extent / 20), max64(1, (extent + 1) / 2));
}

static relay_order random_order(ref_rng *r)
{
    return ref_rng_percent(r, 50) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR;
}

void ref_random_bc_params(ref_rng *r, int64_t m, int64_t n, int max_ranks, ref_bc_params *p)
{
    p->m = m;
    p->n = n;
    p->mb = random_block_size(r, m);
    p->nb = random_block_size(r, n);
    p->nprow = (int)ref_rng_range(r, 1, max_ranks);
    p->npcol = (int)ref_rng_range(r, 1, max_ranks / p->nprow);
    p->grid_order = random_order(r);
    p->rsrc = (int)ref_rng_range(r, 0, p->nprow - 1);
    p->csrc = (int)ref_rng_range(r, 0, p->npcol - 1);
    p->elem_order = random_order(r);
    p->lld = 0;
    if (ref_rng_percent(r, 30)) {
        int64_t needed = p->elem_order == RELAY_COL_MAJOR ? max_numroc(m, p->mb, p->rsrc, p->nprow)
                                                          : max_numroc(n, p->nb, p->csrc, p->npcol);
        p->lld = max64(1, needed) + ref_rng_range(r, 0, 4);
    }
}

void ref_rng_shuffle(ref_rng *r, int *a, int count)
{
    for (int k = count - 1; k > 0; k--) {
        int swap = (int)ref_rng_range(r, 0, k);
        int t = a[k];
        a[k] = a[swap];
        a[swap] = t;
    }
}

/* Each rank's blocks in a shuffled order, with a random gap before each and
 * a leading dimension a little larger than needed: valid, never overlapping. */
static void random_explicit_storage(ref_rng *r, const ref_layout *l, int64_t *offsets, int64_t *lds)
{
    int nblocks = l->nbr * l->nbc;
    int *order = xmalloc(sizeof *order * (size_t)nblocks);
    for (int b = 0; b < nblocks; b++)
        order[b] = b;
    ref_rng_shuffle(r, order, nblocks);
    int64_t *cursor = xmalloc(sizeof *cursor * (size_t)l->nranks);
    for (int rank = 0; rank < l->nranks; rank++)
        cursor[rank] = ref_rng_percent(r, 30) ? ref_rng_range(r, 1, 9) : 0;
    for (int k = 0; k < nblocks; k++) {
        int b = order[k], bi = b / l->nbc, bj = b % l->nbc;
        int64_t rows = block_rows(l, bi), cols = block_cols(l, bj);
        int64_t lead = l->order == RELAY_COL_MAJOR ? rows : cols;
        int64_t other = l->order == RELAY_COL_MAJOR ? cols : rows;
        lds[b] = lead + (ref_rng_percent(r, 50) ? ref_rng_range(r, 1, 3) : 0);
        offsets[b] = cursor[l->owners[b]] + (ref_rng_percent(r, 40) ? ref_rng_range(r, 1, 3) : 0);
        cursor[l->owners[b]] = offsets[b] + (other - 1) * lds[b] + lead;
    }
    free(cursor);
    free(order);
}

void ref_random_grid(ref_layout *out, ref_rng *r, int64_t m, int64_t n, int nranks,
        int explicit_offsets)
{
    int nbr, nbc;
    int64_t *row_splits = ref_random_splits(r, m, &nbr);
    int64_t *col_splits = ref_random_splits(r, n, &nbc);
    size_t nblocks = (size_t)nbr * (size_t)nbc;
    int *owners = xmalloc(sizeof *owners * nblocks);
    /* sometimes only the first few ranks own anything */
    int owning = ref_rng_percent(r, 20) ? (int)ref_rng_range(r, 1, nranks) : nranks;
    for (size_t b = 0; b < nblocks; b++)
        owners[b] = (int)ref_rng_range(r, 0, owning - 1);
    ref_layout_grid(out, nranks, m, n, nbr, row_splits, nbc, col_splits, owners, NULL, NULL,
                    random_order(r));
    if (explicit_offsets) {
        ref_layout packed = *out;
        int64_t *offsets = xmalloc(sizeof *offsets * nblocks);
        int64_t *lds = xmalloc(sizeof *lds * nblocks);
        random_explicit_storage(r, &packed, offsets, lds);
        ref_layout_grid(out, nranks, m, n, nbr, row_splits, nbc, col_splits, owners, offsets, lds,
                        packed.order);
        ref_layout_free(&packed);
        free(offsets);
        free(lds);
    }
    free(owners);
    free(row_splits);
    free(col_splits);
}

void ref_random_layout(ref_layout *out, ref_rng *r, int64_t m, int64_t n, int max_ranks)
{
    int nranks = ref_rng_percent(r, 70) ? max_ranks : (int)ref_rng_range(r, 1, max_ranks);
    int kind = (int)ref_rng_range(r, 0, 99);
    if (kind < 35) {
        ref_bc_params p;
        ref_random_bc_params(r, m, n, nranks, &p);
        ref_layout_block_cyclic(out, &p);
    } else {
        ref_random_grid(out, r, m, n, nranks, kind >= 65);
    }
}

/* ---- element values and the serial transform ------------------------------------- */

size_t ref_type_size(relay_type t)
{
    switch (t) {
    case RELAY_FLOAT: return sizeof(float);
    case RELAY_DOUBLE: return sizeof(double);
    case RELAY_CFLOAT: return sizeof(float complex);
    case RELAY_CDOUBLE: return sizeof(double complex);
    }
    return 0;
}

int ref_type_is_complex(relay_type t)
{
    return t == RELAY_CFLOAT || t == RELAY_CDOUBLE;
}

const char *ref_type_name(relay_type t)
{
    static const char *const names[] = {"float", "double", "cfloat", "cdouble"};
    return names[t];
}

const char *ref_op_name(relay_op op)
{
    static const char *const names[] = {"N", "T", "C"};
    return names[op];
}

void ref_store(relay_type t, void *buf, int64_t k, double complex v)
{
    switch (t) {
    case RELAY_FLOAT: ((float *)buf)[k] = (float)creal(v); break;
    case RELAY_DOUBLE: ((double *)buf)[k] = creal(v); break;
    case RELAY_CFLOAT: ((float complex *)buf)[k] = (float complex)v; break;
    case RELAY_CDOUBLE: ((double complex *)buf)[k] = v; break;
    }
}

double complex ref_load(relay_type t, const void *buf, int64_t k)
{
    switch (t) {
    case RELAY_FLOAT: return ((const float *)buf)[k];
    case RELAY_DOUBLE: return ((const double *)buf)[k];
    case RELAY_CFLOAT: return ((const float complex *)buf)[k];
    case RELAY_CDOUBLE: return ((const double complex *)buf)[k];
    }
    return 0;
}

/* Integers in [-2046, 2046]: alpha*x + beta*y stays far below 2^24. */
double complex ref_value(uint64_t seed, int64_t i, int64_t j, int is_complex)
{
    uint64_t ui = (uint64_t)i, uj = (uint64_t)j;
    double re = (double)((ui * 131 + uj * 71 + seed * 1009 + 7) % 4093) - 2046.0;
    if (!is_complex)
        return re;
    double im = (double)((ui * 37 + uj * 113 + seed * 619 + 3) % 4091) - 2045.0;
    return CMPLX(re, im);
}

double complex ref_expected(const ref_transform *t, int64_t i, int64_t j)
{
    int is_complex = ref_type_is_complex(t->type);
    double complex b = t->op == RELAY_OP_N ? ref_value(t->seed_b, i, j, is_complex)
                                           : ref_value(t->seed_b, j, i, is_complex);
    if (t->op == RELAY_OP_C)
        b = conj(b);
    double complex a = t->alpha * b;
    if (t->read_a)
        a += t->beta * ref_value(t->seed_a, i, j, is_complex);
    return a;
}

/* ---- BMMC permutations ---- */

/* Row i of A as a bit mask over columns. */
static uint64_t bmmc_row(const uint64_t *columns, int n, int i)
{
    uint64_t row = 0;
    for (int j = 0; j < n; j++) row |= (columns[j] >> i & 1) << j;
    return row;
}

uint64_t ref_bmmc_target(const uint64_t *columns, uint64_t c, int n, uint64_t x)
{
    uint64_t y = 0;
    for (int i = 0; i < n; i++) y |= (uint64_t)__builtin_parityll(bmmc_row(columns, n, i) & x) << i;
    return y ^ c;
}

int ref_bmmc_nonsingular(const uint64_t *columns, int n)
{
    uint64_t rows[64];
    for (int i = 0; i < n; i++) rows[i] = bmmc_row(columns, n, i);
    for (int k = 0; k < n; k++) { /* Gaussian elimination on rows, pivot column k */
        int piv = k;
        while (piv < n && !(rows[piv] >> k & 1)) piv++;
        if (piv == n) return 0;
        uint64_t t = rows[k]; rows[k] = rows[piv]; rows[piv] = t;
        for (int i = 0; i < n; i++)
            if (i != k && (rows[i] >> k & 1)) rows[i] ^= rows[k];
    }
    return 1;
}

void ref_bmmc_random(ref_rng *r, int n, uint64_t *columns)
{
    int perm[64];
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)ref_rng_range(r, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int j = 0; j < n; j++) columns[j] = 1ull << perm[j];
    for (int ops = 0; n > 1 && ops < 4 * n; ops++) { /* row i += row k: bit k of each column into bit i */
        int i = (int)ref_rng_range(r, 0, n - 1), k = (int)ref_rng_range(r, 0, n - 2);
        if (k >= i) k++;
        for (int j = 0; j < n; j++) columns[j] ^= (columns[j] >> k & 1) << i;
    }
}

/* ---- the SUMMA distributions ---- */

/* First index of part i when L indices are cut into q balanced parts. */
static int64_t balanced_start(int64_t L, int q, int i) { return (int64_t)i * (L / q) + (i < L % q ? i : L % q); }

void ref_hsumma_locate(const relay_hsumma_params *p, int64_t L, int q, int64_t g, int *owner, int64_t *local)
{
    if (p->dist == RELAY_HSUMMA_BLOCK_CYCLIC) {
        *owner = ref_indxg2p(g, p->dist_block, 0, q);
        *local = ref_indxg2l(g, p->dist_block, q);
        return;
    }
    int i = 0;
    while (i + 1 < q && balanced_start(L, q, i + 1) <= g) i++;
    *owner = i;
    *local = g - balanced_start(L, q, i);
}

int64_t ref_hsumma_count(const relay_hsumma_params *p, int64_t L, int q, int i)
{
    if (p->dist == RELAY_HSUMMA_BLOCK_CYCLIC) return ref_numroc(L, p->dist_block, i, 0, q);
    return balanced_start(L, q, i + 1) - balanced_start(L, q, i);
}
