/* make_hostile.c — writes the corpus of hostile but consistent plans.
 *
 *   make_hostile OUTDIR
 *
 * Takes valid plans of every kind (transforms on 1-4 ranks with p2p, rounds
 * and alltoallv schedules, relabeling, ops N, T and C and several pairs;
 * BMMC; HSUMMA), edits ONE thing at a time — an integer, float, binary or
 * string field of the header or of one rank's section, a key removed, an
 * unknown key added, another kind's map added, a record dropped or
 * repeated — and seals the result (forge.h; an HSUMMA plan's statistics are
 * recomputed too, since a reader recomputes them).  Each file goes to
 *   refused/   the reader refuses it (relay_plan_decode of the whole plan);
 *   harmless/  the reader accepts it and the plan means what the original
 *              meant (same sections, same layouts, sigma and ops: only what
 *              replays ignore changed), or it is a header-only plan whose
 *              every field a reader checks (it is a different, valid plan);
 *   lead/      accepted transform plans that mean something else: lies only
 *              a check across ranks or of coverage can catch;
 *   redescribed/  plans of direct messages with one end described otherwise,
 *              the same elements in the same packed order: each
 *              must be refused on every rank or replay right;
 *   index/     index plans (format 4.0) that lie consistently (index_lies.h):
 *              each must be refused on every rank, at read or bind.
 * and is named npN-BASE-EDIT.plan, N its rank count.  run-npN.txt lists
 * the refused and harmless files relay-run replays at N ranks (a sample:
 * each mpiexec launch costs a second). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "forge.h"
#include "index_lies.h"
#include "redescribe.h"
#include "hsumma_dist.h"
#include "hsumma_fields.h"
#include "plan_internal.h"

/* relay-run replays every RUN_EVERY-th refused (harmless) file of each
 * rank count, RUN_REFUSED (RUN_HARMLESS) at most: an mpiexec launch costs
 * a second or two, and the corpus test should take a couple of minutes. */
enum { MAX_SITES = 4096, RUN_EVERY = 9, RUN_REFUSED = 6, RUN_HARMLESS = 3 };

/* ---- the valid plans edited ------------------------------------------- */

static relay_plan *transform(int nranks, relay_op op, relay_schedule sched, relay_relabel relabel, int pairs, relay_type type)
{
    relay_layout *a, *b, *g;
    relay_plan *p = NULL;
    int64_t rs[] = {0, 3, 10, 17}, cs[] = {0, 5, 17};
    int owners[] = {0, 1 % nranks, 1 % nranks, 2 % nranks, 0, 3 % nranks};
    int fail = relay_layout_block_cyclic(&b, 17, 17, 4, 3, 1, nranks, RELAY_COL_MAJOR, 0, 0, 0, RELAY_ROW_MAJOR) ||
               relay_layout_block_cyclic(&a, 17, 17, 8, 8, nranks, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
               relay_layout_grid(&g, nranks, 17, 17, 3, rs, 2, cs, owners, NULL, NULL, RELAY_COL_MAJOR);
    const relay_layout *as[2] = {a, g}, *bs[2] = {b, a};
    relay_op ops[2] = {op, RELAY_OP_N};
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = sched;
    o.relabel = relabel;
    if (fail || relay_plan_transform_batch(&p, nranks, pairs, as, bs, ops, type, &o)) p = NULL;
    relay_layout_free(a);
    relay_layout_free(b);
    relay_layout_free(g);
    return p;
}

static relay_plan *bmmc(int p, int n)
{
    relay_bmmc perm;
    relay_plan *plan = NULL;
    if (relay_bmmc_bit_reversal(&perm, n) || relay_plan_bmmc(&plan, &perm, p, 1, 8)) return NULL;
    return plan;
}

static relay_plan *hsumma(int rows, int cols, relay_hsumma_dist dist)
{
    relay_hsumma_params hp;
    relay_plan *p = NULL;
    if (relay_hsumma_params_init(&hp, 20, 12, 16, rows, cols, RELAY_DOUBLE)) return NULL;
    hp.inner_block = 2;
    hp.outer_block = 4;
    hp.dist = dist;
    hp.dist_block = dist == RELAY_HSUMMA_BLOCK_CYCLIC ? 3 : 0;
    hp.group_rows = rows;
    hp.group_cols = 1;
    return relay_plan_hsumma(&p, &hp) ? NULL : p;
}

typedef struct {
    const char *name;
    relay_plan *plan;
    void *bytes;             /* its encoding, once main has made it */
    size_t len;
} base;

/* ---- where one edit goes ------------------------------------------------ */

/* A field, map or array of the tree, with its path for the file name. */
typedef struct {
    msgpack_object *obj;
    char path[96];
} site;

typedef struct {
    site s[MAX_SITES];
    int n;
} sites;

static void add_site(sites *all, msgpack_object *o, const char *path)
{
    if (all->n == MAX_SITES) return;
    all->s[all->n].obj = o;
    snprintf(all->s[all->n].path, sizeof all->s[all->n].path, "%s", path);
    all->n++;
}

/* Every object under o except the index and the fingerprint (the seal
 * rewrites them). */
static void collect(sites *all, msgpack_object *o, const char *path)
{
    char sub[96];
    add_site(all, o, path);
    if (o->type == MSGPACK_OBJECT_MAP)
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            msgpack_object *k = &o->via.map.ptr[i].key;
            snprintf(sub, sizeof sub, "%s.%.*s", path, (int)k->via.str.size, k->via.str.ptr);
            if (!strcmp(sub, "h.sections") || !strcmp(sub, "h.fingerprint")) continue;
            collect(all, &o->via.map.ptr[i].val, sub);
        }
    if (o->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i >= 13 && i + 1 < o->via.array.size) continue; /* a long array: its first record and its end */
            snprintf(sub, sizeof sub, "%s.%u", path, i);
            collect(all, &o->via.array.ptr[i], sub);
        }
}

static void collect_plan(forge_plan *f, sites *all, int section)
{
    all->n = 0;
    char path[16];
    collect(all, &f->header, "h");
    if (section < f->nsections) {
        snprintf(path, sizeof path, "s%d", section);
        collect(all, &f->sections[section], path);
    }
}

/* ---- the edits ------------------------------------------------------------ */

static int64_t int_value(const msgpack_object *o)
{
    return o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER ? o->via.i64 : (int64_t)o->via.u64;
}

/* The integer edits, taken in turn: near the value, the edges of int32
 * and int64, zero and negative. */
static int64_t int_edit(int64_t v, int which, char *what, size_t cap)
{
    static const char *const names[] = {"plus1", "minus1", "zero", "neg", "int32max", "int64max", "double"};
    int64_t out[] = {v == INT64_MAX ? 0 : v + 1, v == INT64_MIN ? 0 : v - 1, 0, -1, INT32_MAX, INT64_MAX,
                     v > INT64_MAX / 2 ? 1 : 2 * v + 1};
    snprintf(what, cap, "%s", names[which]);
    return out[which];
}

enum { INT_EDITS = 7 };

/* Applies edit `which` to the site; 0 when it does not apply. */
static int edit_site(forge_plan *f, site *s, int which, char *what, size_t cap)
{
    msgpack_object *o = s->obj;
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        forge_set_int(o, int_edit(int_value(o), which % INT_EDITS, what, cap));
        return 1;
    case MSGPACK_OBJECT_FLOAT64:
    case MSGPACK_OBJECT_FLOAT32: {
        static const double vals[] = {-1.0, NAN, INFINITY, 0.0};
        o->via.f64 = vals[which % 4];
        snprintf(what, cap, "float%d", which % 4);
        return 1;
    }
    case MSGPACK_OBJECT_BIN: {
        char *copy = msgpack_zone_malloc(&f->zone, o->via.bin.size + 1);
        memcpy(copy, o->via.bin.ptr, o->via.bin.size);
        if (o->via.bin.size) copy[(size_t)which % o->via.bin.size] ^= (char)(1 << (which % 8));
        o->via.bin.ptr = copy;
        snprintf(what, cap, "bitflip%d", which);
        return o->via.bin.size > 0;
    }
    case MSGPACK_OBJECT_STR: {
        static const char *const kinds[] = {"transform", "bmmc", "hsumma", "grid", "block_cyclic", "other"};
        *o = forge_str(f, kinds[which % 6]);
        snprintf(what, cap, "str-%s", kinds[which % 6]);
        return 1;
    }
    case MSGPACK_OBJECT_ARRAY: {
        uint32_t n = o->via.array.size;
        if (!n) return 0;
        if (which % 2) { /* the last element (a record's worth in record arrays) dropped */
            o->via.array.size = n >= 13 && n % 13 == 0 ? n - 13 : n >= 10 && n % 10 == 0 ? n - 10 : n >= 4 && n % 4 == 0 ? n - 4 : n - 1;
            snprintf(what, cap, "drop");
        } else { /* the first two elements swapped */
            if (n < 2) return 0;
            msgpack_object *copy = msgpack_zone_malloc(&f->zone, sizeof *copy * n);
            memcpy(copy, o->via.array.ptr, sizeof *copy * n);
            msgpack_object t = copy[0];
            copy[0] = copy[1];
            copy[1] = t;
            o->via.array.ptr = copy;
            snprintf(what, cap, "swap");
        }
        return 1;
    }
    case MSGPACK_OBJECT_MAP:
        if (which % 2 == 0) {
            forge_add(f, o, "zz_unknown", (msgpack_object){.type = MSGPACK_OBJECT_POSITIVE_INTEGER, .via.u64 = 7});
            snprintf(what, cap, "unknown-key");
        } else {
            uint32_t k = (uint32_t)(which / 2) % (o->via.map.size ? o->via.map.size : 1);
            if (!o->via.map.size) return 0;
            msgpack_object key = o->via.map.ptr[k].key;
            char name[48];
            snprintf(name, sizeof name, "%.*s", (int)key.via.str.size, key.via.str.ptr);
            forge_remove(o, name);
            snprintf(what, cap, "no-%s", name);
        }
        return 1;
    default:
        return 0;
    }
}

/* An HSUMMA header's statistics as its (edited) parameters give them, as
 * a consistent writer would store them; unchanged when they are invalid. */
static void restate_hsumma_stats(forge_plan *f)
{
    msgpack_object *hs = forge_get(&f->header, "hsumma"), *stats = forge_get(&f->header, "stats");
    msgpack_object *type = forge_get(&f->header, "type"), *nranks = forge_get(&f->header, "nranks");
    if (!hs || !stats || !type || !nranks || hs->type != MSGPACK_OBJECT_MAP) return;
    int64_t ints[RL_HS_INTS];
    double net[2] = {0, 0};
    for (int k = 0; k < RL_HS_INTS; k++) {
        msgpack_object *v = forge_get(hs, rl_hsumma_keys[k]);
        if (!v) return;
        ints[k] = int_value(v);
    }
    msgpack_object *a = forge_get(hs, "net_alpha"), *b = forge_get(hs, "net_beta");
    if (a) net[0] = a->via.f64;
    if (b) net[1] = b->via.f64;
    rl_hsumma h;
    relay_plan_stats st;
    int64_t outer, inner;
    if (rl_hsumma_from_ints(&h, ints, (relay_type)int_value(type), net[0], net[1], (int)int_value(nranks))) return;
    rl_hsumma_stats(&h.params, &st, &outer, &inner);
    int64_t v[5] = {st.bytes_total, st.bytes_remote, st.bytes_remote_identity, st.messages, st.pieces};
    static const char *const keys[5] = {"bytes_total", "bytes_remote", "bytes_remote_identity", "messages", "pieces"};
    for (int k = 0; k < 5; k++)
        if (forge_get(stats, keys[k])) forge_set_int(forge_get(stats, keys[k]), v[k]);
}

/* ---- classifying and writing ----------------------------------------- */

/* Whether q means what p means: the same sections and the same header
 * but for the statistics and the relabeling mode (which no replay reads). */
static int same_meaning(const relay_plan *p, relay_plan *q)
{
    if (p->kind != RELAY_PLAN_TRANSFORM) return 1;
    relay_plan_stats st = q->stats;
    relay_relabel relabel = q->relabel;
    q->stats = p->stats;
    q->relabel = p->relabel;
    int same = q->nranks == p->nranks && rl_plan_hash(q) == p->fingerprint;
    q->stats = st;
    q->relabel = relabel;
    for (int r = 0; same && r < p->nranks; r++) same = q->sections[r]->checksum == p->sections[r]->checksum;
    return same;
}

typedef struct {
    const char *dir;
    int files[3];
    FILE *run[5];
    int run_count[5][2];
    int lone_runs;           /* run-listed refusals of rank 1's section of a 4-rank plan */
} corpus;

static int write_file(const char *path, const void *buf, size_t len)
{
    FILE *out = fopen(path, "wb");
    int ok = out && fwrite(buf, 1, len, out) == len;
    if (out) ok = fclose(out) == 0 && ok;
    return ok ? 0 : 1;
}

static int emit(corpus *c, const base *b, forge_plan *f, const char *edit)
{
    static const char *const classes[3] = {"refused", "harmless", "lead"};
    void *buf;
    size_t len;
    relay_plan *q = NULL;
    if (b->plan->kind == RELAY_PLAN_HSUMMA) restate_hsumma_stats(f);
    if (forge_seal(f, &buf, &len)) return 1;
    int cls = relay_plan_decode(&q, buf, len, -1) ? 0 : same_meaning(b->plan, q) || b->plan->kind != RELAY_PLAN_TRANSFORM ? 1 : 2;
    relay_plan_free(q);
    char name[256], path[1024];
    snprintf(name, sizeof name, "np%d-%s-%s.plan", b->plan->nranks, b->name, edit);
    for (char *s = name; *s; s++)
        if (*s == '/') *s = '_';
    snprintf(path, sizeof path, "%s/%s/%s", c->dir, classes[cls], name);
    int bad = write_file(path, buf, len);
    free(buf);
    c->files[cls]++;
    /* relay-run replays every few of the refused and harmless files. */
    int np = b->plan->nranks;
    int most = cls ? RUN_HARMLESS : RUN_REFUSED;
    /* ... and the first refusals of one middle rank's section alone, which
     * only that rank sees while the others wait for it. */
    int lone = cls == 0 && np == 4 && !strncmp(edit, "s1.", 3) && c->lone_runs++ < 2;
    if (lone || (cls < 2 && c->run_count[np][cls]++ % RUN_EVERY == 0 && c->run_count[np][cls] <= RUN_EVERY * most))
        fprintf(c->run[np], "%s/%s\n", classes[cls], name);
    return bad;
}

/* Every edit of every site of one plan (its header and one rank's section). */
static int edit_base(corpus *c, const base *b, int section)
{
    forge_plan f;
    sites *all = malloc(sizeof *all);
    int bad = !all || forge_open(&f, b->bytes, b->len);
    if (!bad) collect_plan(&f, all, section);
    int nsites = bad ? 0 : all->n;
    if (!bad) forge_close(&f);
    /* One edit per site, the kinds of edit taken in turn; every other
     * integer, to keep the corpus at a few hundred files. */
    for (int i = 0; i < nsites && !bad; i++) {
        char what[64], edit[200];
        if (forge_open(&f, b->bytes, b->len)) return 1;
        collect_plan(&f, all, section);
        int integer = all->s[i].obj->type == MSGPACK_OBJECT_POSITIVE_INTEGER || all->s[i].obj->type == MSGPACK_OBJECT_NEGATIVE_INTEGER;
        if (integer && i % 2) {
            forge_close(&f);
            continue;
        }
        if (edit_site(&f, &all->s[i], i % (INT_EDITS * 6), what, sizeof what)) {
            snprintf(edit, sizeof edit, "%s-%s", all->s[i].path, what);
            bad = emit(c, b, &f, edit);
        }
        forge_close(&f);
    }
    free(all);
    return bad;
}

/* Another kind's map (or a transform's pairs) added to a header. */
static int add_foreign(corpus *c, const base *b, const base *donor, const char *key)
{
    forge_plan f, d;
    if (forge_open(&f, b->bytes, b->len) || forge_open(&d, donor->bytes, donor->len)) return 1;
    msgpack_object *v = forge_get(&d.header, key);
    char edit[64];
    snprintf(edit, sizeof edit, "h-foreign-%s", key);
    forge_add(&f, &f.header, key, *v);
    int bad = emit(c, b, &f, edit);
    forge_close(&f);
    forge_close(&d);
    return bad;
}

/* ---- one end of a direct message described otherwise ------------------- */

/* Plans on 2 ranks whose messages travel direct (redescribe.h), op N,
 * each edited on one rank's section by each re-description that applies,
 * sealed (the section's checksum recomputed; the header is unchanged) and
 * saved in redescribed/ as np2-BASE-EDIT.plan.  relay-run --verify must
 * refuse each on every rank or verify it (replay.sh run-redescribed). */
typedef int redescription(const relay_plan *p, rl_section *s);

static int split_receive_pieces(const relay_plan *p, rl_section *s) { return (void)p, redescribe_split_receive(s, REDESCRIBE_PIECE_COLUMNS); }
static int split_receive_columns(const relay_plan *p, rl_section *s) { return (void)p, redescribe_split_receive(s, REDESCRIBE_COLUMNS); }
static int split_send_pieces(const relay_plan *p, rl_section *s) { return (void)p, redescribe_split_send(s, REDESCRIBE_PIECE_COLUMNS); }
static int split_send_columns(const relay_plan *p, rl_section *s) { return (void)p, redescribe_split_send(s, REDESCRIBE_COLUMNS); }

static const struct {
    const char *name;
    redescription *edit;
} redescriptions[] = {
    {"recv-split-pieces", split_receive_pieces}, {"recv-split-columns", split_receive_columns},
    {"send-split-pieces", split_send_pieces},    {"send-split-columns", split_send_columns},
    {"recv-fused-across-blocks", redescribe_fuse_across_blocks},
};

/* The plan A := B on 2 ranks, read from bytes; the layouts are freed. */
static relay_plan *direct_plan(relay_layout *a, relay_layout *b)
{
    relay_plan *p = redescribe_decoded_plan(2, a, b, RELAY_OP_N, 0);
    relay_layout_free(a);
    relay_layout_free(b);
    return p;
}

static int write_redescribed(const char *dir, int *files)
{
    const char *bases[3] = {"columns", "wide-columns", "stacked"};
    int bad = 0, applied[sizeof redescriptions / sizeof *redescriptions] = {0};
    for (int k = 0; k < 3 && !bad; k++)
        for (size_t e = 0; e < sizeof redescriptions / sizeof *redescriptions && !bad; e++)
            for (int rank = 0; rank < 2 && !bad; rank++) {
                relay_plan *p = k == 0 ? direct_plan(redescribe_direct_columns(2, 8), redescribe_direct_columns(2, 12))
                              : k == 1 ? direct_plan(redescribe_direct_columns(2, 16), redescribe_direct_columns(2, 48))
                                       : direct_plan(redescribe_stacked(2, 2, 1), redescribe_stacked(2, 1, 0));
                bad = !p;
                if (!bad && redescriptions[e].edit(p, p->sections[rank])) {
                    char path[1024];
                    snprintf(path, sizeof path, "%s/redescribed/np2-%s-r%d-%s.plan", dir, bases[k], rank, redescriptions[e].name);
                    p->sections[rank]->checksum = rl_section_hash(p->sections[rank], p->count);
                    bad = relay_plan_save(p, path) != RELAY_OK;
                    *files += !bad;
                    applied[e] = 1;
                }
                relay_plan_free(p);
            }
    /* Every re-description must apply somewhere, or the corpus lost a case. */
    for (size_t e = 0; e < sizeof applied / sizeof *applied && !bad; e++)
        if (!applied[e]) {
            fprintf(stderr, "make_hostile: %s applies to none of the direct plans\n", redescriptions[e].name);
            bad = 1;
        }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_hostile OUTDIR\n");
        return 2;
    }
    base bases[] = {
        {"t-n-p2p", transform(1, RELAY_OP_N, RELAY_SCHED_P2P, RELAY_RELABEL_NONE, 1, RELAY_DOUBLE), NULL, 0},
        {"t-c-p2p-2pairs", transform(2, RELAY_OP_C, RELAY_SCHED_P2P, RELAY_RELABEL_NONE, 2, RELAY_CFLOAT), NULL, 0},
        {"t-t-rounds-greedy", transform(3, RELAY_OP_T, RELAY_SCHED_ROUNDS, RELAY_RELABEL_GREEDY, 2, RELAY_DOUBLE), NULL, 0},
        {"t-n-a2a-optimal", transform(4, RELAY_OP_N, RELAY_SCHED_ALLTOALLV, RELAY_RELABEL_OPTIMAL, 1, RELAY_CDOUBLE), NULL, 0},
        {"t-t-rounds", transform(2, RELAY_OP_T, RELAY_SCHED_ROUNDS, RELAY_RELABEL_NONE, 1, RELAY_FLOAT), NULL, 0},
        {"bmmc", bmmc(2, 6), NULL, 0},
        {"bmmc", bmmc(1, 5), NULL, 0},
        {"hsumma-cb", hsumma(2, 2, RELAY_HSUMMA_CHECKERBOARD), NULL, 0},
        {"hsumma-bc", hsumma(1, 3, RELAY_HSUMMA_BLOCK_CYCLIC), NULL, 0},
    };
    int nbases = (int)(sizeof bases / sizeof *bases), bad = 0;
    corpus c = {argv[1], {0}, {NULL}, {{0}}, 0};
    const char *sub[4] = {"refused", "harmless", "lead", "redescribed"};
    char path[1024];
    int redescribed = 0, index_lies = 0;
    mkdir(argv[1], 0755);
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", argv[1], sub[k]);
        if (mkdir(path, 0755) && errno != EEXIST) bad = 1;
    }
    for (int np = 1; np <= 4; np++) {
        snprintf(path, sizeof path, "%s/run-np%d.txt", argv[1], np);
        c.run[np] = fopen(path, "w");
        bad = bad || !c.run[np];
    }
    for (int i = 0; i < nbases && !bad; i++)
        bad = !bases[i].plan || relay_plan_encode(bases[i].plan, &bases[i].bytes, &bases[i].len);
    /* Each plan's header and its last rank's section; the 4-rank transform's rank 1 too. */
    for (int i = 0; i < nbases && !bad; i++) {
        bad = edit_base(&c, &bases[i], bases[i].plan->nranks - 1);
        if (!bad && i == 3) bad = edit_base(&c, &bases[i], 1);
    }
    const base *t = &bases[2], *bm = &bases[5], *hs = &bases[7];
    bad = bad || add_foreign(&c, bm, t, "pairs") || add_foreign(&c, hs, t, "pairs") || add_foreign(&c, hs, bm, "bmmc") ||
          add_foreign(&c, t, bm, "bmmc") || add_foreign(&c, t, hs, "hsumma") || add_foreign(&c, bm, hs, "hsumma") ||
          add_foreign(&c, t, t, "sigma");
    bad = bad || write_redescribed(argv[1], &redescribed) || write_index_lies(argv[1], &index_lies);
    for (int np = 1; np <= 4; np++)
        if (c.run[np]) fclose(c.run[np]);
    for (int i = 0; i < nbases; i++) {
        relay_plan_free(bases[i].plan);
        free(bases[i].bytes);
    }
    printf("hostile corpus: %d refused, %d harmless, %d caught across ranks, %d with one end of a direct message "
           "described otherwise, %d index plans that lie\n", c.files[0], c.files[1], c.files[2], redescribed, index_lies);
    return bad;
}
