/* codec_read.c — decoding untrusted plan files and buffers.
 *
 * Order of trust: the preamble's magic and major version, then the header's
 * size and hash, then the header's fields (layouts rebuilt through their
 * validating constructors, sigma checked to be a permutation), then the
 * fingerprint (which covers the header alone), then each wanted section's
 * bytes against the index's hash, its fields, its content checksum, and
 * finally rl_section_validate.  A BMMC
 * plan has no sections: its header's factors pass rl_bmmc_validate; nor has
 * an HSUMMA plan, whose parameters pass rl_hsumma_check, nor an N-D plan
 * (format 3.0, the only kind of that major), whose layouts and pairs pass
 * rl_nd_layout_build and rl_nd_check_pair (nd_codec.c).  An index plan
 * (format 4.0, the only kind of that major) is read behind its preamble
 * by index_codec.c.  A file is
 * read with seeks: a rank that asks for its own section reads the preamble,
 * the header and that section only. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "codec.h"
#include "error.h"
#include "hsumma_dist.h"
#include "hsumma_fields.h"
#include "index_codec.h"
#include "mp_reader.h"
#include "nd_codec.h"
#include "plan_internal.h"
#include "stats_fields.h"

/* ---- where the bytes come from: a buffer or a file ---------------------- */

typedef struct {
    const unsigned char *mem;  /* buffer source */
    FILE *file;                /* file source */
    uint64_t size;
    unsigned char *owned;      /* the last chunk read from the file */
} source;

/* Makes bytes [off, off+len) available at *out (valid until the next read). */
static relay_status source_read(source *s, uint64_t off, uint64_t len, const unsigned char **out, const char *what)
{
    if (off > s->size || len > s->size - off)
        return rl_fail(RELAY_ERR_FORMAT, "plan is truncated: the %s needs bytes %llu..%llu of %llu", what,
                       (unsigned long long)off, (unsigned long long)(off + len), (unsigned long long)s->size);
    if (s->mem) {
        *out = s->mem + off;
        return RELAY_OK;
    }
    free(s->owned);
    s->owned = malloc(len ? (size_t)len : 1);
    if (!s->owned) return RL_NOMEM();
    if (fseeko(s->file, (off_t)off, SEEK_SET) != 0 || fread(s->owned, 1, (size_t)len, s->file) != len)
        return rl_fail(RELAY_ERR_IO, "reading the %s failed: %s", what, strerror(errno));
    *out = s->owned;
    return RELAY_OK;
}

static relay_status format_error(const mp_reader *r, const char *where)
{
    return rl_fail(RELAY_ERR_FORMAT, "plan %s is malformed: %s", where, r->error ? r->error : "unexpected content");
}

/* ---- preamble ------------------------------------------------------------ */

typedef struct {
    int64_t major, minor;
    uint64_t header_bytes, header_hash;
    uint64_t length;           /* bytes the preamble itself takes */
} preamble;

static relay_status read_preamble(source *s, preamble *pre)
{
    const unsigned char *b;
    uint64_t n = s->size < RELAY_PREAMBLE_MAX ? s->size : RELAY_PREAMBLE_MAX;
    relay_status st = source_read(s, 0, n, &b, "preamble");
    if (st) return st;
    mp_reader r;
    uint32_t pairs;
    int magic = 0, have = 0;
    mp_init(&r, b, (size_t)n);
    if (!mp_read_map(&r, &pairs)) return rl_fail(RELAY_ERR_FORMAT, "not a relay plan (no preamble map at the start)");
    for (uint32_t i = 0; i < pairs && !r.error; i++) {
        const char *key, *val;
        uint32_t klen, vlen;
        if (!mp_read_str(&r, &key, &klen)) break;
        if (mp_key_is(key, klen, "magic")) {
            if (mp_read_str(&r, &val, &vlen)) magic = mp_key_is(val, vlen, RELAY_FORMAT_MAGIC);
        } else if (mp_key_is(key, klen, "major")) have |= mp_read_int(&r, &pre->major) << 0;
        else if (mp_key_is(key, klen, "minor")) have |= mp_read_int(&r, &pre->minor) << 1;
        else if (mp_key_is(key, klen, "header_bytes")) have |= mp_read_uint64(&r, &pre->header_bytes) << 2;
        else if (mp_key_is(key, klen, "header_hash")) have |= mp_read_uint64(&r, &pre->header_hash) << 3;
        else mp_skip(&r);
    }
    if (!magic) return rl_fail(RELAY_ERR_FORMAT, "not a relay plan (bad magic)");
    if (r.error || have != 15) return format_error(&r, "preamble");
    if (pre->major != RELAY_FORMAT_MAJOR && pre->major != RELAY_FORMAT_ND_MAJOR && pre->major != RELAY_FORMAT_INDEX_MAJOR)
        return rl_fail(RELAY_ERR_VERSION,
                       "plan format version %lld.%lld is not readable by this relay (reads %d.x, %d.x and %d.x)%s",
                       (long long)pre->major, (long long)pre->minor, RELAY_FORMAT_MAJOR, RELAY_FORMAT_ND_MAJOR, RELAY_FORMAT_INDEX_MAJOR,
                       pre->major < RELAY_FORMAT_MAJOR ? ": rebuild the plan with this relay's relay-plan (same command "
                                                         "and layouts), or relay_plan_transform and relay_plan_save"
                                                       : ": it was written by a newer relay");
    pre->length = (uint64_t)(r.p - b);
    return RELAY_OK;
}

/* ---- header -------------------------------------------------------------- */

typedef struct {
    relay_plan *plan;
    uint64_t *index;           /* 4 per rank: offset, size, bytes hash, content checksum */
    uint64_t fingerprint;
} header;

enum { SHOWN_KEY = 40 };

/* A key as the file spells it, fit for one line of error: its first
 * SHOWN_KEY bytes, each outside printable ASCII shown as '?' (an unknown
 * key is any bytes the file holds, a newline among them). */
static void shown_key(char out[SHOWN_KEY + 1], const char *key, uint32_t klen)
{
    uint32_t n = klen < SHOWN_KEY ? klen : SHOWN_KEY;
    for (uint32_t i = 0; i < n; i++) out[i] = key[i] >= 0x20 && key[i] < 0x7f ? key[i] : '?';
    out[n] = '\0';
}

/* The one line for a field that failed to read, naming it. */
static relay_status field_error(const mp_reader *r, const char *where, const char *key, uint32_t klen)
{
    char shown[SHOWN_KEY + 1];
    shown_key(shown, key, klen);
    return rl_fail(RELAY_ERR_FORMAT, "plan %s field `%s%s` is malformed: %s", where, shown, klen > SHOWN_KEY ? "..." : "",
                   r->error ? r->error : "unexpected content");
}

/* An integer array field of declared length `n` into a fresh allocation. */
static int64_t *read_int_array(mp_reader *r, uint32_t *n, int64_t lo, int64_t hi)
{
    const unsigned char *mark = r->p;
    if (!mp_read_array(r, n)) return NULL;
    r->p = mark;
    int64_t *a = rl_malloc_array(*n, sizeof *a);
    if (!a) {
        r->error = "out of memory";
        return NULL;
    }
    if (!mp_read_int_array(r, a, *n, lo, hi)) {
        free(a);
        return NULL;
    }
    return a;
}

/* What a header's layouts may cost, checked before they are built
 * (docs/plan-format.md).  Memory: a layout holds a few entries of at most
 * 16 bytes per rank (besides a grid's arrays, which come from the file),
 * and a plan of 4,096 pairs holds 8,192 layouts of up to the plan's ranks:
 * at most RL_LAYOUT_RANKS_FLOOR + RL_LAYOUT_RANKS_PER_BYTE per header byte
 * in all.  Time: the fingerprint covers every block boundary, which a
 * block-cyclic layout computes rather than stores, and a few bytes of one
 * can describe 2^31 block rows: at most 2^RL_HASHED_BOUNDARIES_LOG2 of
 * those in all, about a second of hashing. */
enum { RL_LAYOUT_RANKS_FLOOR = 1 << 22, RL_LAYOUT_RANKS_PER_BYTE = 64, RL_HASHED_BOUNDARIES_LOG2 = 28 };

/* What the layouts of one header are read against. */
typedef struct {
    int64_t nranks;            /* the plan's: no layout has more */
    int64_t ranks_left;        /* layout ranks the reader may still allocate */
    int64_t boundaries_left;   /* block-cyclic block boundaries it may still hash */
} layout_limits;

typedef struct {
    int64_t v[12];             /* scalar fields, by index below */
    unsigned seen;             /* keys met, bit per layout_keys index */
    int64_t *row_splits, *col_splits, *owners, *offsets, *lds;
    uint32_t nrs, ncs, nown, noff, nld;
    int grid;
} layout_fields;

enum { LF_M, LF_N, LF_ORDER, LF_NRANKS, LF_MB, LF_NB, LF_NPROW, LF_NPCOL, LF_GORDER, LF_RSRC, LF_CSRC, LF_LLD, LF_SCALARS,
       LF_ROW_SPLITS = LF_SCALARS, LF_COL_SPLITS, LF_OWNERS, LF_OFFSETS, LF_LDS, LF_KIND, LF_COUNT };
static const char *const layout_keys[LF_COUNT] = {"m", "n", "order", "nranks", "mb", "nb", "nprow", "npcol", "grid_order",
                                                   "rsrc", "csrc", "lld", "row_splits", "col_splits", "owners",
                                                   "offsets", "lds", "kind"};

static void layout_fields_free(layout_fields *f)
{
    free(f->row_splits);
    free(f->col_splits);
    free(f->owners);
    free(f->offsets);
    free(f->lds);
}

/* One field of a layout map; a key met twice is refused (an array read
 * twice would be lost). */
static relay_status read_layout_field(mp_reader *r, layout_fields *f, const char *key, uint32_t klen)
{
    const char *val;
    uint32_t vlen;
    int k = mp_key_index(layout_keys, LF_COUNT, key, klen);
    if (k < 0) return mp_skip(r) ? RELAY_OK : format_error(r, "layout");
    if (f->seen & 1u << k) return rl_fail(RELAY_ERR_FORMAT, "plan layout has the `%s` field twice", layout_keys[k]);
    f->seen |= 1u << k;
    if (k == LF_KIND) {
        if (mp_read_str(r, &val, &vlen)) f->grid = mp_key_is(val, vlen, "grid") ? 1 : mp_key_is(val, vlen, "block_cyclic") ? 0 : -1;
    } else if (k < LF_SCALARS) mp_read_int(r, &f->v[k]);
    else if (k == LF_ROW_SPLITS) f->row_splits = read_int_array(r, &f->nrs, 0, INT64_MAX);
    else if (k == LF_COL_SPLITS) f->col_splits = read_int_array(r, &f->ncs, 0, INT64_MAX);
    else if (k == LF_OWNERS) f->owners = read_int_array(r, &f->nown, 0, RELAY_MAX_RANKS);
    else if (k == LF_OFFSETS) f->offsets = read_int_array(r, &f->noff, 0, INT64_MAX);
    else f->lds = read_int_array(r, &f->nld, 0, INT64_MAX);
    return r->error ? field_error(r, "layout", key, klen) : RELAY_OK;
}

static int int_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

static int64_t ceil_div(int64_t x, int64_t b) { return x / b + (x % b != 0); }

/* Takes a layout's ranks from the budget, or says why it is refused. */
static relay_status charge_ranks(layout_limits *lim, int64_t nranks)
{
    if (nranks > lim->nranks)
        return rl_fail(RELAY_ERR_FORMAT, "plan layout has %lld ranks, more than the plan's %lld", (long long)nranks,
                       (long long)lim->nranks);
    if (nranks > lim->ranks_left)
        return rl_fail(RELAY_ERR_FORMAT, "plan layouts would take more memory than a plan file of this size may ask "
                                         "(%lld more layout ranks than allowed)",
                       (long long)(nranks - lim->ranks_left));
    lim->ranks_left -= nranks;
    return RELAY_OK;
}

/* Takes the hashing of a block-cyclic dimension of `extent` in blocks of
 * `block` (the `what` of its fields) from the budget: blocks + 1
 * boundaries. */
static relay_status charge_boundaries(layout_limits *lim, int64_t extent, int64_t block, const char *what)
{
    int64_t blocks = ceil_div(extent, block);
    if (blocks >= lim->boundaries_left)
        return rl_fail(RELAY_ERR_FORMAT, "plan block-cyclic layouts have more blocks than a reader hashes (%s = %lld here, "
                                         "at most 2^%d in all)", what, (long long)blocks, RL_HASHED_BOUNDARIES_LOG2);
    lim->boundaries_left -= blocks + 1;
    return RELAY_OK;
}

static relay_status build_block_cyclic(layout_fields *f, layout_limits *lim, relay_layout **out)
{
    const int64_t *v = f->v;
    unsigned need = (1u << LF_SCALARS) - 1;
    if ((f->seen & need) != need || !int_range(v[LF_NPROW], 1, RELAY_MAX_RANKS) || !int_range(v[LF_NPCOL], 1, RELAY_MAX_RANKS) ||
        !int_range(v[LF_RSRC], 0, RELAY_MAX_RANKS) || !int_range(v[LF_CSRC], 0, RELAY_MAX_RANKS) || !int_range(v[LF_ORDER], 0, 1) ||
        !int_range(v[LF_GORDER], 0, 1) || v[LF_MB] < 1 || v[LF_NB] < 1 || v[LF_M] < 0 || v[LF_N] < 0)
        return rl_fail(RELAY_ERR_FORMAT, "plan block-cyclic layout has missing or out-of-range fields");
    int64_t grid = v[LF_NPROW] * v[LF_NPCOL];
    if (v[LF_NRANKS] != grid)
        return rl_fail(RELAY_ERR_FORMAT, "plan block-cyclic layout declares %lld ranks on its %lld x %lld grid",
                       (long long)v[LF_NRANKS], (long long)v[LF_NPROW], (long long)v[LF_NPCOL]);
    relay_status st = charge_ranks(lim, grid);
    if (!st) st = charge_boundaries(lim, v[LF_M], v[LF_MB], "m / mb");
    if (!st) st = charge_boundaries(lim, v[LF_N], v[LF_NB], "n / nb");
    if (!st) st = relay_layout_block_cyclic(out, v[LF_M], v[LF_N], v[LF_MB], v[LF_NB], (int)v[LF_NPROW], (int)v[LF_NPCOL],
                                            (relay_order)v[LF_GORDER], (int)v[LF_RSRC], (int)v[LF_CSRC], v[LF_LLD],
                                            (relay_order)v[LF_ORDER]);
    return st == RELAY_ERR_ARG ? rl_fail(RELAY_ERR_FORMAT, "plan layout is invalid: %s", relay_last_error()) : st;
}

static relay_status build_grid(layout_fields *f, layout_limits *lim, relay_layout **out)
{
    const int64_t *v = f->v;
    unsigned need = 1u << LF_M | 1u << LF_N | 1u << LF_ORDER | 1u << LF_NRANKS;
    uint64_t nblocks = (uint64_t)(f->nrs ? f->nrs - 1 : 0) * (f->ncs ? f->ncs - 1 : 0);
    if ((f->seen & need) != need || !f->row_splits || !f->col_splits || !f->owners || f->nrs < 1 || f->ncs < 1 ||
        f->nown != nblocks || !int_range(v[LF_NRANKS], 1, RELAY_MAX_RANKS) || !int_range(v[LF_ORDER], 0, 1) ||
        (!f->offsets != !f->lds) || (f->offsets && (f->noff != nblocks || f->nld != nblocks)) || f->nrs - 1 > INT32_MAX ||
        f->ncs - 1 > INT32_MAX)
        return rl_fail(RELAY_ERR_FORMAT, "plan grid layout has missing or inconsistent arrays");
    relay_status st = charge_ranks(lim, v[LF_NRANKS]);
    if (st) return st;
    int *owners = rl_malloc_array((size_t)nblocks, sizeof *owners);
    if (!owners) return RL_NOMEM();
    for (uint64_t b = 0; b < nblocks; b++) owners[b] = (int)f->owners[b];
    st = relay_layout_grid(out, (int)v[LF_NRANKS], v[LF_M], v[LF_N], (int)f->nrs - 1, f->row_splits, (int)f->ncs - 1,
                           f->col_splits, owners, f->offsets, f->lds, (relay_order)v[LF_ORDER]);
    free(owners);
    return st == RELAY_ERR_ARG ? rl_fail(RELAY_ERR_FORMAT, "plan layout is invalid: %s", relay_last_error()) : st;
}

/* A layout map, rebuilt through the public constructors (they validate it
 * all) once its size is known to be within the limits. */
static relay_status read_layout(mp_reader *r, layout_limits *lim, relay_layout **out)
{
    layout_fields f;
    uint32_t pairs;
    relay_status st = RELAY_OK;
    memset(&f, 0, sizeof f);
    f.grid = -1;
    if (!mp_read_map(r, &pairs)) return format_error(r, "layout");
    for (uint32_t i = 0; i < pairs && !st; i++) {
        const char *key;
        uint32_t klen;
        st = mp_read_str(r, &key, &klen) ? read_layout_field(r, &f, key, klen) : format_error(r, "layout");
    }
    if (!st && f.grid < 0) st = rl_fail(RELAY_ERR_FORMAT, "plan layout lacks its kind (block_cyclic or grid)");
    if (!st) st = f.grid ? build_grid(&f, lim, out) : build_block_cyclic(&f, lim, out);
    layout_fields_free(&f);
    return st;
}

typedef struct {
    int64_t op;
    relay_layout *dst, *src;
} raw_pair;

static relay_status read_pair(mp_reader *r, layout_limits *lim, raw_pair *pr)
{
    static const char *const keys[3] = {"op", "dst", "src"};
    uint32_t pairs;
    unsigned seen = 0;
    relay_status st = RELAY_OK;
    if (!mp_read_map(r, &pairs)) return format_error(r, "pair");
    for (uint32_t i = 0; i < pairs && !st; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(r, &key, &klen)) return format_error(r, "pair");
        int k = mp_key_index(keys, 3, key, klen);
        if (k >= 0 && seen & 1u << k) return rl_fail(RELAY_ERR_FORMAT, "plan pair has the `%s` field twice", keys[k]);
        if (k >= 0) seen |= 1u << k;
        if (k == 0 && !mp_read_ranged(r, &pr->op, 0, 2)) st = field_error(r, "pair", key, klen);
        else if (k == 1) st = read_layout(r, lim, &pr->dst);
        else if (k == 2) st = read_layout(r, lim, &pr->src);
        else if (k < 0 && !mp_skip(r)) st = format_error(r, "pair");
    }
    if (st) return st;
    if (seen != 7) return rl_fail(RELAY_ERR_FORMAT, "plan pair lacks its `%s` field", keys[__builtin_ctz(~seen)]);
    int t = pr->op != RELAY_OP_N;
    if ((t ? pr->src->n : pr->src->m) != pr->dst->m || (t ? pr->src->m : pr->src->n) != pr->dst->n)
        return rl_fail(RELAY_ERR_FORMAT, "plan pair has layouts whose shapes do not match its op");
    return RELAY_OK;
}

/* The header's keys.  Each kind of plan has its own set (kind_keys), all
 * required; a key of another kind is refused, so that the kind alone
 * decides what is read and built, and unknown keys are ignored. */
enum { HK_KIND, HK_NRANKS, HK_TYPE, HK_SCHEDULE, HK_RELABEL, HK_ROUNDS, HK_PAIRS, HK_SIGMA, HK_STATS, HK_FINGERPRINT,
       HK_SECTIONS, HK_BMMC, HK_HSUMMA, HK_TUNING, HK_CAP, HK_NODE_MAP, HK_COUNT };
static const char *const header_keys[HK_COUNT] = {"kind",     "nranks", "type",   "schedule", "relabel",
                                                   "rounds",   "pairs",  "sigma",  "stats",    "fingerprint",
                                                   "sections", "bmmc",   "hsumma", "tuning",   "max_buffer_bytes",
                                                   "node_of_rank"};
#define HK(k) (1u << HK_##k)
enum { KIND_COUNT = RELAY_PLAN_ND + 1 };
static const unsigned kind_keys[KIND_COUNT] = {
    [RELAY_PLAN_TRANSFORM] = HK(KIND) | HK(NRANKS) | HK(TYPE) | HK(SCHEDULE) | HK(RELABEL) | HK(ROUNDS) | HK(PAIRS) |
                             HK(SIGMA) | HK(STATS) | HK(FINGERPRINT) | HK(SECTIONS),
    [RELAY_PLAN_BMMC] = HK(KIND) | HK(NRANKS) | HK(STATS) | HK(FINGERPRINT) | HK(BMMC),
    [RELAY_PLAN_HSUMMA] = HK(KIND) | HK(NRANKS) | HK(TYPE) | HK(STATS) | HK(FINGERPRINT) | HK(HSUMMA),
    [RELAY_PLAN_ND] = HK(KIND) | HK(NRANKS) | HK(TYPE) | HK(SCHEDULE) | HK(PAIRS) | HK(STATS) | HK(FINGERPRINT),
};
/* Keys a kind's header may have (format 2.2: a transform plan's tuning and
 * memory cap; 3.0: an N-D plan's node map and tuning). */
static const unsigned kind_optional_keys[KIND_COUNT] = {[RELAY_PLAN_TRANSFORM] = HK(TUNING) | HK(CAP),
                                                        [RELAY_PLAN_ND] = HK(NODE_MAP) | HK(TUNING)};
static const char *const kind_names[KIND_COUNT] = {"transform", "bmmc", "hsumma", "nd"};

/* Everything of the header, gathered before the plan is assembled. */
typedef struct {
    int major;                 /* the file's major version (0: a header alone, whose kind decides it) */
    size_t bytes;              /* the header's size */
    uint64_t section_bytes;    /* the bytes after it, where the sections lie (UINT64_MAX: a header alone) */
    uint32_t pairs_declared;   /* the length of the `pairs` array, seen in the first pass */
    unsigned seen;             /* keys met, bit per header_keys index */
    int kind;                  /* a relay_plan_kind, -1 while unknown */
    int64_t nranks, type, schedule, relabel, rounds, max_buffer_bytes;
    rl_bmmc *bmmc;             /* a BMMC plan's factors */
    int64_t hsumma[RL_HS_INTS];/* an HSUMMA plan's parameters */
    double net[2];
    raw_pair *pairs;
    uint32_t npairs;
    int64_t *sigma, stats[5];
    uint32_t nsigma, nindex;
    uint64_t fingerprint, *index;
    relay_tuning tuning;       /* ntimed 0 unless the header has one */
    rl_nd_plan *nd;            /* an N-D plan's pairs */
    int64_t *node_of_rank;     /* an N-D plan's node map, nnodes entries */
    uint32_t nnodes;
} header_fields;


/* The layout ranks a header of this size may have its layouts allocate. */
static int64_t layout_ranks_allowed(const header_fields *h)
{
    return RL_LAYOUT_RANKS_FLOOR + RL_LAYOUT_RANKS_PER_BYTE * (int64_t)h->bytes;
}

static relay_status read_pairs(mp_reader *r, header_fields *h)
{
    if (!mp_read_array(r, &h->npairs)) return format_error(r, "header");
    if (h->npairs < 1 || h->npairs > RELAY_MAX_PAIRS) return rl_fail(RELAY_ERR_FORMAT, "plan header has %u transform pairs", h->npairs);
    h->pairs = rl_calloc(h->npairs, sizeof *h->pairs);
    if (!h->pairs) return RL_NOMEM();
    layout_limits lim = {h->nranks, layout_ranks_allowed(h), (int64_t)1 << RL_HASHED_BOUNDARIES_LOG2};
    for (uint32_t k = 0; k < h->npairs; k++) {
        relay_status st = read_pair(r, &lim, &h->pairs[k]);
        if (st) return st;
    }
    return RELAY_OK;
}

/* An N-D plan's pairs (nd_codec.c), under the same memory budget. */
static relay_status read_nd_pairs(mp_reader *r, header_fields *h)
{
    rl_nd_limits lim = {h->nranks, layout_ranks_allowed(h)};
    return rl_nd_read_pairs(r, &lim, &h->nd);
}

static relay_status read_stats(mp_reader *r, header_fields *h) { return rl_read_stats(r, h->stats); }

static uint64_t *read_index(mp_reader *r, uint32_t *n)
{
    const unsigned char *mark = r->p;
    if (!mp_read_array(r, n)) return NULL;
    r->p = mark;
    mp_read_array(r, n);
    uint64_t *a = rl_malloc_array(*n, sizeof *a);
    if (!a) {
        r->error = "out of memory";
        return NULL;
    }
    for (uint32_t i = 0; i < *n && !r->error; i++) mp_read_uint64(r, &a[i]);
    return a;
}

/* ---- a BMMC plan's factors ---------------------------------------------- */

enum { BF_N, BF_P, BF_F, BF_ELEM_SIZE, BF_RANK, BF_V, BF_W, BF_CV, BF_COUNT };
static const char *const bmmc_keys[BF_COUNT] = {"n", "p", "f", "elem_size", "rank", "v", "w", "cv"};

/* The fields of a "bmmc" map; the matrices stay raw until n is known. */
typedef struct {
    int64_t v[BF_V];
    const unsigned char *bin[2];
    uint32_t len[2];
    uint64_t cv;
    unsigned have;
} bmmc_fields;

static void read_bmmc_field(mp_reader *r, bmmc_fields *bf, int k)
{
    if (k < BF_V) mp_read_ranged(r, &bf->v[k], 0, INT32_MAX);
    else if (k == BF_CV) mp_read_uint64(r, &bf->cv);
    else mp_read_bin(r, &bf->bin[k - BF_V], &bf->len[k - BF_V]);
}

/* A bit matrix from binary data: n columns of ceil(n/8) little-endian
 * bytes (codec_write.c's pack_matrix). */
static int unpack_matrix(const unsigned char *b, uint32_t len, int n, rl_gf2 *m)
{
    uint32_t per = ((uint32_t)n + 7) / 8;
    if (len != (uint32_t)n * per) return 0;
    m->n = n;
    for (int j = 0; j < n; j++) {
        m->col[j] = 0;
        for (uint32_t k = 0; k < per; k++) m->col[j] |= (uint64_t)b[j * per + k] << (8 * k);
    }
    return 1;
}

/* The "bmmc" map into h->bmmc, checked by rl_bmmc_validate. */
static relay_status read_bmmc(mp_reader *r, header_fields *h)
{
    uint32_t pairs;
    bmmc_fields bf = {0};
    if (!mp_read_map(r, &pairs)) return format_error(r, "BMMC header");
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(r, &key, &klen)) return format_error(r, "BMMC header");
        int k = mp_key_index(bmmc_keys, BF_COUNT, key, klen);
        if (k < 0) mp_skip(r);
        else read_bmmc_field(r, &bf, k);
        if (r->error) return field_error(r, "BMMC", key, klen);
        if (k >= 0) bf.have |= 1u << k;
    }
    if (bf.have != (1u << BF_COUNT) - 1)
        return rl_fail(RELAY_ERR_FORMAT, "plan BMMC map lacks its `%s` field", bmmc_keys[__builtin_ctz(~bf.have)]);
    rl_bmmc *b = h->bmmc = calloc(1, sizeof *h->bmmc);
    if (!b) return RL_NOMEM();
    *b = (rl_bmmc){.n = (int)bf.v[BF_N], .p = (int)bf.v[BF_P], .f = (int)bf.v[BF_F], .elem_size = bf.v[BF_ELEM_SIZE],
                   .rank = (int)bf.v[BF_RANK], .cv = bf.cv};
    if (b->n < 1 || b->n > RELAY_BMMC_MAX_BITS || !unpack_matrix(bf.bin[0], bf.len[0], b->n, &b->v) ||
        !unpack_matrix(bf.bin[1], bf.len[1], b->n, &b->w))
        return rl_fail(RELAY_ERR_FORMAT, "plan BMMC factors are not two matrices of the plan's %d columns", b->n);
    if (b->p > b->n || b->f > b->n - b->p) /* p and f may be near 2^31: no sum of them in int */
        return rl_fail(RELAY_ERR_FORMAT, "plan BMMC rank bits %lld..%lld exceed its %d index bits", (long long)b->f,
                       (long long)b->f + b->p - 1, b->n);
    rl_bmmc_from_factors(b);
    return rl_bmmc_validate(b);
}

/* ---- an HSUMMA plan's parameters ------------------------------------------ */

/* The "hsumma" map into h->hsumma and h->net; checked once the header is whole. */
static relay_status read_hsumma(mp_reader *r, header_fields *h)
{
    uint32_t pairs, have = 0;
    if (!mp_read_map(r, &pairs)) return format_error(r, "HSUMMA header");
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(r, &key, &klen)) return format_error(r, "HSUMMA header");
        int k = mp_key_index(rl_hsumma_keys, RL_HS_INTS, key, klen);
        int sizes = k <= RL_HS_K || k == RL_HS_INNER || k == RL_HS_OUTER || k == RL_HS_DIST_BLOCK;
        if (k >= 0) have |= (uint32_t)mp_read_ranged(r, &h->hsumma[k], 0, sizes ? INT64_MAX : INT32_MAX) << k;
        else if (mp_key_is(key, klen, "net_alpha")) have |= (uint32_t)mp_read_double(r, &h->net[0]) << RL_HS_INTS;
        else if (mp_key_is(key, klen, "net_beta")) have |= (uint32_t)mp_read_double(r, &h->net[1]) << (RL_HS_INTS + 1);
        else mp_skip(r);
        if (r->error) return field_error(r, "HSUMMA", key, klen);
    }
    if (have != (1u << (RL_HS_INTS + 2)) - 1) {
        int k = __builtin_ctz(~have);
        return rl_fail(RELAY_ERR_FORMAT, "plan HSUMMA map lacks its `%s` field",
                       k < RL_HS_INTS ? rl_hsumma_keys[k] : k == RL_HS_INTS ? "net_alpha" : "net_beta");
    }
    return RELAY_OK;
}

/* ---- a transform plan's tuning (tuning.c) ------------------------------ */

/* The choices, [schedule, packed, seconds] each, or with forward fourth
 * (N-D plans), or with forward and window (2.3: transform plans whose
 * choice goes through a shared-memory window); tuning.c checks which kind
 * may have which. */
static int read_choices(mp_reader *r, relay_tuning *t)
{
    uint32_t n, fields;
    if (!mp_read_array(r, &n)) return 0;
    if (n < 1 || n > RELAY_TUNING_MAX_CHOICES) {
        r->error = "not 1 to 8 choices";
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t schedule, packed, forward = 0, window = 0;
        double seconds;
        if (!mp_read_array(r, &fields)) return 0;
        if (fields < 3 || fields > 5) {
            r->error = "a choice is not [schedule, packed, seconds], [schedule, packed, seconds, forward] or "
                       "[schedule, packed, seconds, forward, window]";
            return 0;
        }
        if (!mp_read_ranged(r, &schedule, 0, RELAY_SCHED_NEIGHBOR) || !mp_read_ranged(r, &packed, 0, 1) || !mp_read_double(r, &seconds) ||
            (fields >= 4 && !mp_read_ranged(r, &forward, 0, 1)) || (fields == 5 && !mp_read_ranged(r, &window, 0, 1)))
            return 0;
        t->choices[i] = (relay_tuning_choice){.schedule = (relay_schedule)schedule, .packed = (int)packed, .forward = (int)forward,
                                              .seconds = seconds, .window = (int)window};
    }
    t->ntimed = (int)n;
    return 1;
}

/* The required keys, then the optional machine of a predicted tuning. */
enum { TK_BEST, TK_PER_NODE, TK_REPLAYS, TK_CHOICES, TK_REQUIRED, TK_MACHINE = TK_REQUIRED, TK_COUNT };
static const char *const tuning_keys[TK_COUNT] = {"best", "ranks_per_node", "replays", "choices", "machine"};

/* 1 to 31 bytes; tuning.c checks that they are printable. */
static int read_machine(mp_reader *r, relay_tuning *t)
{
    const char *name;
    uint32_t len;
    if (!mp_read_str(r, &name, &len)) return 0;
    if (len < 1 || len >= RELAY_TUNING_MACHINE_MAX) {
        r->error = "a machine name of 1 to 31 bytes expected";
        return 0;
    }
    memcpy(t->machine, name, len);
    t->machine[len] = '\0';
    return 1;
}

static int read_tuning_field(mp_reader *r, relay_tuning *t, int k)
{
    int64_t v[2];
    switch (k) {
    case TK_BEST:
        if (!mp_read_ranged(r, v, 0, RELAY_TUNING_MAX_CHOICES - 1)) return 0;
        t->best = (int)v[0];
        return 1;
    case TK_PER_NODE:
        if (!mp_read_int_array(r, v, 2, 1, RELAY_MAX_RANKS)) return 0;
        t->ranks_per_node_min = (int)v[0];
        t->ranks_per_node_max = (int)v[1];
        return 1;
    case TK_REPLAYS:
        if (!mp_read_ranged(r, v, 1, INT32_MAX)) return 0;
        t->replays = (int)v[0];
        return 1;
    case TK_MACHINE: return read_machine(r, t);
    default: return read_choices(r, t);
    }
}

/* The map's fields, each once; checked against the plan once it is
 * assembled (rl_tuning_flaw). */
static relay_status read_tuning(mp_reader *r, header_fields *h)
{
    uint32_t pairs, have = 0;
    if (!mp_read_map(r, &pairs)) return format_error(r, "tuning");
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(r, &key, &klen)) return format_error(r, "tuning");
        int k = mp_key_index(tuning_keys, TK_COUNT, key, klen);
        if (k >= 0 && have & 1u << k) return rl_fail(RELAY_ERR_FORMAT, "plan tuning has the `%s` field twice", tuning_keys[k]);
        if (k < 0 ? !mp_skip(r) : !read_tuning_field(r, &h->tuning, k)) return field_error(r, "tuning", key, klen);
        if (k >= 0) have |= 1u << k;
    }
    uint32_t required = (1u << TK_REQUIRED) - 1;
    if ((have & required) != required)
        return rl_fail(RELAY_ERR_FORMAT, "plan tuning lacks its `%s` field", tuning_keys[__builtin_ctz(~have)]);
    return RELAY_OK;
}

/* ---- the header -------------------------------------------------------- */

static void read_kind(mp_reader *r, header_fields *h)
{
    const char *val;
    uint32_t vlen;
    if (mp_read_str(r, &val, &vlen)) h->kind = mp_key_index(kind_names, KIND_COUNT, val, vlen);
}

/* The second pass: the value of a key the kind has (kind and nranks are
 * read already). */
static relay_status read_header_field(mp_reader *r, header_fields *h, int k)
{
    switch (k) {
    case HK_TYPE: mp_read_ranged(r, &h->type, 0, 3); break;
    case HK_SCHEDULE: mp_read_ranged(r, &h->schedule, 0, RELAY_SCHED_NEIGHBOR); break;
    case HK_RELABEL: mp_read_ranged(r, &h->relabel, 0, 2); break;
    case HK_ROUNDS: mp_read_ranged(r, &h->rounds, 0, RELAY_MAX_RANKS); break;
    case HK_PAIRS: return h->kind == RELAY_PLAN_ND ? read_nd_pairs(r, h) : read_pairs(r, h);
    case HK_SIGMA: h->sigma = read_int_array(r, &h->nsigma, 0, RELAY_MAX_RANKS); break;
    case HK_STATS: return read_stats(r, h);
    case HK_FINGERPRINT: mp_read_uint64(r, &h->fingerprint); break;
    case HK_SECTIONS: h->index = read_index(r, &h->nindex); break;
    case HK_BMMC: return read_bmmc(r, h);
    case HK_HSUMMA: return read_hsumma(r, h);
    case HK_TUNING: return read_tuning(r, h);
    case HK_CAP: mp_read_ranged(r, &h->max_buffer_bytes, 1, INT64_MAX); break;
    case HK_NODE_MAP: h->node_of_rank = read_int_array(r, &h->nnodes, 0, h->nranks - 1); break;
    default: mp_skip(r);
    }
    return RELAY_OK;
}

/* Every section of a transform plan holds its `rank` and `src_elems` and
 * `dst_elems`, an integer per pair each: in MessagePack at least
 * SECTION_MIN_BYTES and 2 bytes per pair (a fixmap, three fixstr keys,
 * fixint values).  A file too short for its ranks' sections is refused
 * before any layout is built: the layouts, at most 3 x pairs x ranks
 * layout ranks (source, destination and its relabeling), then cost at
 * most 1.5 layout ranks per byte of the file, and reading a plan takes
 * time proportional to its size (docs/plan-format.md). */
enum { SECTION_MIN_BYTES = 29 };

static relay_status check_room_for_sections(const header_fields *h)
{
    uint64_t need = (uint64_t)h->nranks * (2 * (uint64_t)h->pairs_declared + SECTION_MIN_BYTES);
    if (h->section_bytes == UINT64_MAX || need <= h->section_bytes) return RELAY_OK;
    return rl_fail(RELAY_ERR_FORMAT, "plan file has %llu bytes after its header, too few for the sections of its %lld ranks "
                                     "and %u pairs (at least %llu bytes)",
                   (unsigned long long)h->section_bytes, (long long)h->nranks, h->pairs_declared, (unsigned long long)need);
}

/* Each major holds its own kinds: 3.x N-D plans alone, 2.x the others. */
static relay_status check_kind_version(const header_fields *h)
{
    if (!h->major || (h->kind == RELAY_PLAN_ND) == (h->major == RELAY_FORMAT_ND_MAJOR)) return RELAY_OK;
    if (h->kind == RELAY_PLAN_ND)
        return rl_fail(RELAY_ERR_FORMAT, "plan of kind nd in a format %d.x file: N-D plans are format %d.x files", h->major,
                       RELAY_FORMAT_ND_MAJOR);
    return rl_fail(RELAY_ERR_FORMAT, "plan of kind %s in a format %d.x file, which holds N-D plans (kind nd) only",
                   kind_names[h->kind], h->major);
}

/* The keys a header has must be those of its kind, each once. */
static relay_status check_header_keys(const header_fields *h)
{
    if (h->kind < 0)
        return rl_fail(RELAY_ERR_FORMAT, "plan kind is missing or not one this relay reads (transform, bmmc, hsumma, nd)");
    relay_status st = check_kind_version(h);
    if (st) return st;
    unsigned foreign = h->seen & ~(kind_keys[h->kind] | kind_optional_keys[h->kind]), missing = kind_keys[h->kind] & ~h->seen;
    if (foreign)
        return rl_fail(RELAY_ERR_FORMAT, "plan header of a %s plan has a `%s` field, which %s plans do not have",
                       kind_names[h->kind], header_keys[__builtin_ctz(foreign)], kind_names[h->kind]);
    if (missing) return rl_fail(RELAY_ERR_FORMAT, "plan header lacks its `%s` field", header_keys[__builtin_ctz(missing)]);
    /* A transform header holds sigma and 4 index entries per rank, a byte each at least. */
    if (h->kind == RELAY_PLAN_TRANSFORM && 5 * h->nranks > (int64_t)h->bytes)
        return rl_fail(RELAY_ERR_FORMAT, "plan header of %zu bytes cannot hold the sigma and section index of %lld ranks",
                       h->bytes, (long long)h->nranks);
    return h->kind == RELAY_PLAN_TRANSFORM ? check_room_for_sections(h) : RELAY_OK;
}

/* The first pass over the header map: which keys it has (each once), and
 * the two that decide how the rest is read, kind and nranks. */
static relay_status scan_header(mp_reader r, header_fields *h)
{
    uint32_t pairs;
    if (!mp_read_map(&r, &pairs)) return format_error(&r, "header");
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(&r, &key, &klen)) return format_error(&r, "header");
        int k = mp_key_index(header_keys, HK_COUNT, key, klen);
        if (k >= 0 && h->seen & 1u << k) return rl_fail(RELAY_ERR_FORMAT, "plan header has the `%s` field twice", header_keys[k]);
        if (k >= 0) h->seen |= 1u << k;
        if (k == HK_KIND) read_kind(&r, h);
        else if (k == HK_NRANKS) mp_read_ranged(&r, &h->nranks, 1, RELAY_MAX_RANKS);
        else {
            mp_reader at = r;
            if (k == HK_PAIRS && !mp_read_array(&at, &h->pairs_declared)) h->pairs_declared = 0;
            mp_skip(&r);
        }
        if (r.error) return field_error(&r, "header", key, klen);
    }
    return check_header_keys(h);
}

/* The second pass: every field of the kind. */
static relay_status read_header_fields(mp_reader r, header_fields *h)
{
    uint32_t pairs;
    relay_status st = RELAY_OK;
    mp_read_map(&r, &pairs);
    for (uint32_t i = 0; i < pairs && !st; i++) {
        const char *key;
        uint32_t klen;
        mp_read_str(&r, &key, &klen);
        int k = mp_key_index(header_keys, HK_COUNT, key, klen);
        st = k == HK_KIND || k == HK_NRANKS ? (mp_skip(&r), RELAY_OK) : read_header_field(&r, h, k);
        if (!st && r.error) st = field_error(&r, "header", key, klen);
    }
    return st;
}

/* Checks that sigma is a permutation of the plan's ranks. */
static int is_permutation(const int64_t *sigma, uint32_t n)
{
    char *seen = rl_calloc(n, 1);
    int ok = seen != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        ok = sigma[i] >= 0 && sigma[i] < n && !seen[sigma[i]];
        if (ok) seen[sigma[i]] = 1;
    }
    free(seen);
    return ok;
}

static relay_status check_transform_header(const header_fields *h)
{
    int64_t n = h->nranks;
    if (h->nsigma != n || !is_permutation(h->sigma, h->nsigma))
        return rl_fail(RELAY_ERR_FORMAT, "plan sigma is not a permutation of its %lld ranks", (long long)n);
    if (h->schedule == RELAY_SCHED_AUTO)
        return rl_fail(RELAY_ERR_FORMAT, "plan schedule is auto: a planned schedule is always resolved");
    if (h->max_buffer_bytes && h->schedule != RELAY_SCHED_ROUNDS)
        return rl_fail(RELAY_ERR_FORMAT, "plan has a memory cap but replays without rounds, which the cap needs");
    if (h->max_buffer_bytes && h->max_buffer_bytes < (int64_t)relay_type_size((relay_type)h->type))
        return rl_fail(RELAY_ERR_FORMAT, "plan's memory cap of %lld bytes is below one element", (long long)h->max_buffer_bytes);
    if (h->schedule == RELAY_SCHED_ROUNDS ? h->rounds > n : h->rounds != 1)
        return rl_fail(RELAY_ERR_FORMAT, "plan has %lld communication rounds, impossible for its schedule and %lld ranks",
                       (long long)h->rounds, (long long)n);
    if (h->nindex != 4 * (uint64_t)n) return rl_fail(RELAY_ERR_FORMAT, "plan section index has %u entries for %lld ranks", h->nindex, (long long)n);
    return RELAY_OK;
}

/* An N-D plan replays point to point; its node map names a node per rank;
 * its pairs pass the planner's checks, now that the type is known. */
static relay_status check_nd_header(const header_fields *h)
{
    if (h->schedule != RELAY_SCHED_P2P)
        return rl_fail(RELAY_ERR_FORMAT, "plan schedule is %lld: N-D plans replay point to point (schedule %d, p2p)",
                       (long long)h->schedule, RELAY_SCHED_P2P);
    if (h->node_of_rank && h->nnodes != h->nranks)
        return rl_fail(RELAY_ERR_FORMAT, "plan node map has %u entries for %lld ranks", h->nnodes, (long long)h->nranks);
    return rl_nd_check_read_pairs(h->nd, (int)h->nranks, (relay_type)h->type);
}

static relay_status check_header(const header_fields *h)
{
    if (h->kind == RELAY_PLAN_TRANSFORM) return check_transform_header(h);
    if (h->kind == RELAY_PLAN_ND) return check_nd_header(h);
    if (h->kind == RELAY_PLAN_BMMC && h->nranks != (int64_t)1 << h->bmmc->p)
        return rl_fail(RELAY_ERR_FORMAT, "BMMC plan for 2^%d ranks declares %lld", h->bmmc->p, (long long)h->nranks);
    return RELAY_OK; /* HSUMMA parameters are checked as the plan is assembled */
}

static relay_status assemble_bmmc(header_fields *h, relay_plan *p)
{
    p->type = RELAY_DOUBLE;
    p->bmmc = h->bmmc;
    h->bmmc = NULL;
    return RELAY_OK;
}

static relay_status assemble_hsumma(header_fields *h, relay_plan *p)
{
    p->type = (relay_type)h->type;
    p->hsumma = calloc(1, sizeof *p->hsumma);
    relay_status st = p->hsumma ? rl_hsumma_from_ints(p->hsumma, h->hsumma, p->type, h->net[0], h->net[1], p->nranks)
                                : RL_NOMEM();
    if (st) return st;
    /* The statistics follow from the parameters. */
    relay_plan_stats want;
    int64_t outer, inner;
    rl_hsumma_stats(&p->hsumma->params, &want, &outer, &inner);
    p->rounds = (int32_t)(outer + inner);
    if (memcmp(&want, &p->stats, sizeof want) != 0)
        return rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan's statistics do not follow from its parameters");
    return RELAY_OK;
}

static relay_status adopt_tuning(const header_fields *h, relay_plan *p);

/* The N-D plan takes the pairs read (an empty body of the same count, from
 * rl_nd_plan_new, goes back to h to be freed), the node map and the tuning. */
static relay_status assemble_nd(header_fields *h, relay_plan *p)
{
    rl_nd_plan *empty = p->nd;
    p->nd = h->nd;
    h->nd = empty;
    if (h->node_of_rank) {
        p->nd->node_of_rank = rl_malloc_array((size_t)p->nranks, sizeof *p->nd->node_of_rank);
        if (!p->nd->node_of_rank) return RL_NOMEM();
        for (int r = 0; r < p->nranks; r++) p->nd->node_of_rank[r] = (int32_t)h->node_of_rank[r];
    }
    return adopt_tuning(h, p);
}

/* The tuning read, once the plan it must fit is known. */
static relay_status adopt_tuning(const header_fields *h, relay_plan *p)
{
    if (!h->tuning.ntimed) return RELAY_OK;
    const char *flaw = rl_tuning_flaw(p, &h->tuning);
    if (flaw) return rl_fail(RELAY_ERR_FORMAT, "plan tuning does not fit the plan: %s", flaw);
    p->tuning = h->tuning;
    return RELAY_OK;
}

/* The pairs keep the layouts read (over the plan's ranks); A's relabeled
 * copies share one rank map, sigma and its inverse, whatever the pairs. */
static relay_status assemble_transform(header_fields *h, relay_plan *p)
{
    p->schedule = (relay_schedule)h->schedule;
    p->rounds = (int32_t)h->rounds;
    p->max_buffer_bytes = h->max_buffer_bytes;
    p->relabel = (relay_relabel)h->relabel;
    p->type = (relay_type)h->type;
    p->sigma_inverse = rl_malloc_array((size_t)p->nranks, sizeof *p->sigma_inverse);
    if (!p->sigma_inverse) return RL_NOMEM();
    for (int r = 0; r < p->nranks; r++) {
        p->sigma[r] = (int32_t)h->sigma[r];
        p->sigma_inverse[p->sigma[r]] = r;
    }
    relay_status st = RELAY_OK;
    for (int k = 0; k < p->count && !st; k++) {
        rl_pair *pr = &p->pairs[k];
        pr->op = (relay_op)h->pairs[k].op;
        st = rl_layout_relabel_shared(&pr->dst_relabeled, h->pairs[k].dst, p->sigma, p->sigma_inverse, p->nranks);
        if (st) break;
        pr->dst = h->pairs[k].dst;
        pr->src = h->pairs[k].src;
        h->pairs[k].dst = h->pairs[k].src = NULL;
        rl_layout_widen(pr->dst, p->nranks);
        rl_layout_widen(pr->src, p->nranks);
    }
    return st ? st : adopt_tuning(h, p);
}

/* The plan object of the header's kind: an N-D plan's as the planner makes
 * it (rl_nd_plan_new), the others' with their pairs and sections. */
static relay_status new_plan(const header_fields *h, relay_plan **p)
{
    if (h->kind == RELAY_PLAN_ND) return rl_nd_plan_new(p, (int)h->nranks, h->nd->count, (relay_type)h->type);
    *p = rl_plan_alloc((int)h->nranks, (int)h->npairs);
    return *p ? RELAY_OK : RL_NOMEM();
}

/* Moves the header's fields into a new plan (sections not yet read). */
static relay_status assemble(header_fields *h, relay_plan **out)
{
    relay_plan *p = NULL;
    relay_status st = new_plan(h, &p);
    if (st) return st;
    p->kind = (relay_plan_kind)h->kind;
    p->fingerprint = h->fingerprint;
    p->stats = (relay_plan_stats){h->stats[0], h->stats[1], h->stats[2], h->stats[3], h->stats[4]};
    p->schedule = RELAY_SCHED_P2P;
    st = h->kind == RELAY_PLAN_BMMC     ? assemble_bmmc(h, p)
         : h->kind == RELAY_PLAN_HSUMMA ? assemble_hsumma(h, p)
         : h->kind == RELAY_PLAN_ND     ? assemble_nd(h, p)
                                        : assemble_transform(h, p);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    *out = p;
    return RELAY_OK;
}

static void header_fields_free(header_fields *h)
{
    for (uint32_t k = 0; h->pairs && k < h->npairs; k++) {
        relay_layout_free(h->pairs[k].dst);
        relay_layout_free(h->pairs[k].src);
    }
    free(h->pairs);
    free(h->sigma);
    free(h->index);
    free(h->bmmc);
    rl_nd_plan_free(h->nd);
    free(h->node_of_rank);
}

/* The header's bytes, checked against their hash, and its first pass:
 * kind, nranks and the keys, and whether the file has room for the
 * sections (section_bytes: what follows the header, UINT64_MAX where the
 * header is read alone). */
static relay_status scan_header_of(source *s, const preamble *pre, uint64_t section_bytes, header_fields *h, mp_reader *r)
{
    const unsigned char *b;
    memset(h, 0, sizeof *h);
    h->kind = -1;
    relay_status st = source_read(s, pre->length, pre->header_bytes, &b, "header");
    if (st) return st;
    if (RL_HASH_MISMATCH(rl_header_hash(b, (size_t)pre->header_bytes, (int)pre->major, (int)pre->minor), pre->header_hash))
        return rl_fail(RELAY_ERR_FORMAT, "plan header checksum does not match: the file is corrupted");
    h->major = (int)pre->major;
    h->bytes = (size_t)pre->header_bytes;
    h->section_bytes = section_bytes;
    mp_init(r, b, (size_t)pre->header_bytes);
    return scan_header(*r, h);
}

static relay_status read_header(source *s, const preamble *pre, uint64_t section_bytes, header *out)
{
    mp_reader r;
    header_fields h;
    relay_status st = scan_header_of(s, pre, section_bytes, &h, &r);
    if (!st) st = read_header_fields(r, &h);
    if (!st) st = check_header(&h);
    if (!st) st = assemble(&h, &out->plan);
    if (!st) {
        out->index = h.index;
        h.index = NULL;
    }
    header_fields_free(&h);
    return st;
}

/* ---- sections ------------------------------------------------------------ */

/* A flat integer array of whole records into a fresh allocation. */
static int read_records(mp_reader *r, void **out, int64_t *nrecords, int fields)
{
    uint32_t n;
    int64_t *a = read_int_array(r, &n, INT64_MIN, INT64_MAX);
    if (!a) return 0;
    if (n % (uint32_t)fields) {
        free(a);
        r->error = "a record array has a partial record";
        return 0;
    }
    free(*out);
    *out = a;
    *nrecords = n / (uint32_t)fields;
    return 1;
}

static void read_section_field(mp_reader *r, rl_section *s, int count, const char *key, uint32_t klen, int *have,
                               uint32_t nround[2])
{
    int64_t v, n;
    if (mp_key_is(key, klen, "rank")) *have |= mp_read_ranged(r, &v, 0, RELAY_MAX_RANKS) && v == s->rank;
    else if (mp_key_is(key, klen, "src_elems")) *have |= mp_read_int_array(r, s->src_elems, (uint32_t)count, 0, INT64_MAX) << 1;
    else if (mp_key_is(key, klen, "dst_elems")) *have |= mp_read_int_array(r, s->dst_elems, (uint32_t)count, 0, INT64_MAX) << 2;
    else if (mp_key_is(key, klen, "send")) { if (read_records(r, (void **)&s->send, &n, RL_MESSAGE_FIELDS)) s->nsend = (int32_t)n; }
    else if (mp_key_is(key, klen, "recv")) { if (read_records(r, (void **)&s->recv, &n, RL_MESSAGE_FIELDS)) s->nrecv = (int32_t)n; }
    else if (mp_key_is(key, klen, "send_lattices")) read_records(r, (void **)&s->send_spans, &s->nsend_spans, RL_SPAN_FIELDS);
    else if (mp_key_is(key, klen, "recv_lattices")) read_records(r, (void **)&s->recv_spans, &s->nrecv_spans, RL_SPAN_FIELDS);
    else if (mp_key_is(key, klen, "local")) read_records(r, (void **)&s->local, &s->nlocal, RL_LOCAL_FIELDS);
    else if (mp_key_is(key, klen, "local_round")) mp_read_ranged(r, &s->local_round, 0, RELAY_MAX_RANKS);
    else if (mp_key_is(key, klen, "send_round") && !s->send_round) s->send_round = read_int_array(r, &nround[0], 0, RELAY_MAX_RANKS);
    else if (mp_key_is(key, klen, "recv_round") && !s->recv_round) s->recv_round = read_int_array(r, &nround[1], 0, RELAY_MAX_RANKS);
    else mp_skip(r);
}

/* Buffer sizes a section declares must be the ones its layouts imply. */
static relay_status check_section_sizes(const relay_plan *p, const rl_section *s)
{
    for (int k = 0; k < p->count; k++)
        if (s->src_elems[k] != relay_layout_local_elems(p->pairs[k].src, s->rank) ||
            s->dst_elems[k] != relay_layout_local_elems(p->pairs[k].dst_relabeled, s->rank))
            return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d declares buffer sizes its layouts do not imply", s->rank);
    return RELAY_OK;
}

static relay_status read_section(source *src, const header *h, uint64_t base, int rank)
{
    relay_plan *p = h->plan;
    const uint64_t *ix = &h->index[4 * (size_t)rank];
    const unsigned char *b;
    if (ix[0] > UINT64_MAX - base) return rl_fail(RELAY_ERR_FORMAT, "plan section %d has an absurd offset", rank);
    relay_status st = source_read(src, base + ix[0], ix[1], &b, "section");
    if (st) return st;
    if (RL_HASH_MISMATCH(XXH3_64bits(b, (size_t)ix[1]), ix[2]))
        return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d fails its checksum: the file is corrupted", rank);
    rl_section *s = rl_section_alloc(rank, p->count);
    if (!s) return RL_NOMEM();
    mp_reader r;
    uint32_t pairs;
    int have = 0;
    uint32_t nround[2] = {0, 0};
    mp_init(&r, b, (size_t)ix[1]);
    if (mp_read_map(&r, &pairs))
        for (uint32_t i = 0; i < pairs && !r.error; i++) {
            const char *key;
            uint32_t klen;
            if (mp_read_str(&r, &key, &klen)) read_section_field(&r, s, p->count, key, klen, &have, nround);
        }
    if (r.error || have != 7) st = format_error(&r, "section");
    else if ((s->send_round && nround[0] != (uint32_t)s->nsend) || (s->recv_round && nround[1] != (uint32_t)s->nrecv))
        st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d has a round list whose length is not its message count", rank);
    s->checksum = st ? 0 : rl_section_hash(s, p->count);
    if (!st && RL_HASH_MISMATCH(s->checksum, ix[3]))
        st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d does not match its checksum", rank);
    if (!st) st = rl_section_validate(s, p);
    if (!st) st = check_section_sizes(p, s);
    if (st) {
        rl_section_free(s);
        return st;
    }
    p->sections[rank] = s;
    return RELAY_OK;
}

/* The fingerprint must follow from the header (section contents are
 * covered by the index's checksums). */
static relay_status check_fingerprint(const header *h)
{
    if (RL_HASH_MISMATCH(rl_plan_hash(h->plan), h->plan->fingerprint))
        return rl_fail(RELAY_ERR_FORMAT, "plan fingerprint does not match its contents");
    return RELAY_OK;
}

static relay_status read_bytes(void *s, uint64_t off, uint64_t len, const unsigned char **out, const char *what)
{
    return source_read(s, off, len, out, what);
}

/* An index plan's file (format 4.x, index_codec.c) behind its preamble. */
static rl_index_file index_file(source *s, const preamble *pre)
{
    return (rl_index_file){read_bytes, s, s->size, pre->length, pre->header_bytes, pre->header_hash, (int)pre->minor};
}

static relay_status decode(source *s, relay_plan **out, int rank)
{
    preamble pre = {0};
    header h = {0};
    relay_status st = read_preamble(s, &pre);
    if (!st && pre.major == RELAY_FORMAT_INDEX_MAJOR) {
        rl_index_file f = index_file(s, &pre);
        return rl_index_decode(&f, rank, out);
    }
    uint64_t after = pre.length + pre.header_bytes;
    if (!st) st = read_header(s, &pre, after <= s->size ? s->size - after : 0, &h);
    if (!st && (rank < -1 || rank >= h.plan->nranks))
        st = rl_fail(RELAY_ERR_ARG, "rank %d is not -1 or a rank of this %d-rank plan", rank, h.plan->nranks);
    if (!st) st = check_fingerprint(&h);
    uint64_t base = pre.length + pre.header_bytes;
    int sections = !st && !h.plan->bmmc && !h.plan->hsumma && !h.plan->nd;
    for (int r = rank < 0 ? 0 : rank; sections && !st && r < (rank < 0 ? h.plan->nranks : rank + 1); r++)
        st = read_section(s, &h, base, r);
    free(h.index);
    if (st) {
        relay_plan_free(h.plan);
        return st;
    }
    h.plan->format_major = (int)pre.major;
    h.plan->format_minor = (int)pre.minor;
    h.plan->from_bytes = 1;
    *out = h.plan;
    return RELAY_OK;
}

/* A header alone has no version: major 0 lets its kind decide (2.x or 3.x). */
relay_status rl_header_fingerprint(const void *bytes, size_t len, uint64_t *fingerprint)
{
    source s = {bytes, NULL, len, NULL};
    preamble pre = {0, 0, len, rl_header_hash(bytes, len, 0, 0), 0};
    header h = {0};
    relay_status st = read_header(&s, &pre, UINT64_MAX, &h);
    if (!st) *fingerprint = rl_plan_hash(h.plan);
    relay_plan_free(h.plan);
    free(h.index);
    return st;
}

relay_status relay_plan_decode(relay_plan **out, const void *buf, size_t len, int rank)
{
    if (!out || (!buf && len)) return rl_fail(RELAY_ERR_ARG, "relay_plan_decode: NULL argument");
    source s = {buf ? buf : (const unsigned char *)"", NULL, len, NULL};
    return decode(&s, out, rank);
}

/* Reads a file with `read` (decode, or peek_ranks) as a source. */
typedef relay_status file_reader(source *s, void *arg);

static relay_status read_file(const char *path, file_reader *read, void *arg)
{
    FILE *f = fopen(path, "rb");
    if (!f) return rl_fail(RELAY_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    struct stat sb;
    relay_status st = fstat(fileno(f), &sb) == 0 ? RELAY_OK : rl_fail(RELAY_ERR_IO, "cannot stat %s: %s", path, strerror(errno));
    if (!st && !S_ISREG(sb.st_mode)) st = rl_fail(RELAY_ERR_IO, "%s is not a regular file", path);
    source s = {NULL, f, st ? 0 : (uint64_t)sb.st_size, NULL};
    if (!st) st = read(&s, arg);
    free(s.owned);
    fclose(f);
    return st;
}

typedef struct {
    relay_plan **out;
    int rank;
} decode_args;

static relay_status decode_file(source *s, void *arg)
{
    decode_args *a = arg;
    return decode(s, a->out, a->rank);
}

relay_status relay_plan_load(relay_plan **out, const char *path, int rank)
{
    if (!out || !path) return rl_fail(RELAY_ERR_ARG, "relay_plan_load: NULL argument");
    return read_file(path, decode_file, &(decode_args){out, rank});
}

/* The preamble and the header's first pass only: no layout is built, no
 * section read; time proportional to the header. */
static relay_status peek_ranks(source *s, void *arg)
{
    preamble pre = {0};
    header_fields h;
    mp_reader r;
    relay_status st = read_preamble(s, &pre);
    if (!st && pre.major == RELAY_FORMAT_INDEX_MAJOR) {
        rl_index_file f = index_file(s, &pre);
        return rl_index_peek_nranks(&f, arg);
    }
    uint64_t after = pre.length + pre.header_bytes;
    if (!st) st = scan_header_of(s, &pre, after <= s->size ? s->size - after : 0, &h, &r);
    if (!st) *(int *)arg = (int)h.nranks;
    return st;
}

relay_status relay_plan_file_nranks(const char *path, int *nranks)
{
    if (!path || !nranks) return rl_fail(RELAY_ERR_ARG, "relay_plan_file_nranks: NULL argument");
    return read_file(path, peek_ranks, nranks);
}
