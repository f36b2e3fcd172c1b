/* test_nd_transfers.c — cmocka unit tests of what deriving one rank's N-D
 * transfers costs (plan_format/nd_transfers.h) and of the source replica
 * each receiver reads.
 *
 * Cost: plans whose cuts hold far more blocks than elements, made by
 * relay's own planner (relay_plan_nd_batch): empty arrays cut into 2^24
 * blocks of 1 per dimension on both sides, 8 and 3,900 pairs of them, and
 * blocks of 1 against blocks of 1 on meshes of other sizes.  Each is
 * read back from its bytes, dumped as relay-dump dumps it (summary, --json,
 * --rank 0), and every rank's transfers derived as binding derives them,
 * under the derivation's own work counter and a ceiling on CPU time and
 * peak memory from getrusage, ten times what they take here (the empty
 * plan of 455 bytes once took 5.5 s and 1.5 GB).
 *
 * Replicas: the rule a receiver reads a replicated source by is checked
 * against a reference written here from its statement (the rank itself if
 * it holds a replica; else, with a node map, the (turn mod count)-th
 * replica on its node in replica order; else replica turn mod replicas;
 * turn = the receiver's mesh position + the group's), on random meshes,
 * rank sets and node maps; and with a node map, one element replicated on
 * 65,536 ranks to 65,536 others costs rank 0 at most twice the work it
 * costs without one (it once scanned every replica per receiver). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "dump.h"
#include "nd_transfers.h"
#include "relay/nd.h"

enum { MAXM = RELAY_ND_MAX_MESH, MAXD = RELAY_ND_MAX_DIMS };

/* ---- layouts ------------------------------------------------------------------------ */

/* An N-D layout: shape, mesh on consecutive ranks from first_rank (or the
 * given ranks), placements "S<k>" with a block, "R" or "P". */
typedef struct {
    int ndims, mesh_ndims;
    int64_t shape[MAXD];
    int mesh[MAXM];
    relay_placement place[MAXM];
    int *ranks;
} spec;

static relay_nd_layout *build(const spec *s)
{
    relay_nd_desc d = {s->ndims, s->shape, s->mesh_ndims, s->mesh, s->ranks, s->place, RELAY_ROW_MAJOR, NULL};
    relay_nd_layout *l = NULL;
    if (relay_nd_layout_create(&l, &d)) fail_msg("layout: %s", relay_last_error());
    return l;
}

static int *consecutive(int64_t n, int first)
{
    int *r = malloc((size_t)n * sizeof *r);
    assert_non_null(r);
    for (int64_t i = 0; i < n; i++) r[i] = first + (int)i;
    return r;
}

static relay_placement shard(int dim, int64_t block) { return (relay_placement){RELAY_SHARD, dim, block, NULL}; }
static relay_placement replicate(void) { return (relay_placement){RELAY_REPLICATE, 0, 0, NULL}; }

/* ---- cost ----------------------------------------------------------------------------- */

typedef struct {
    double cpu_s;
    long peak_kb;
} usage;

static usage now(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (usage){u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec), u.ru_maxrss};
}

/* What dumping does with plan p: the summary, --json and --rank 0, into
 * a stream that discards them. */
static void dump_all_views(const relay_plan *p)
{
    FILE *out = fopen("/dev/null", "w");
    assert_non_null(out);
    dump_request requests[3] = {{.path = "p", .rank = -1, .limit = DUMP_DEFAULT_LIMIT, .out = out},
                                {.path = "p", .json = 1, .rank = -1, .limit = DUMP_DEFAULT_LIMIT, .out = out},
                                {.path = "p", .rank = 0, .limit = DUMP_DEFAULT_LIMIT, .out = out}};
    for (int i = 0; i < 3; i++) {
        cli_error e;
        if (dump_plan(&requests[i], p, &e)) fail_msg("dump: %s", e.msg);
    }
    fclose(out);
}

/* Reads the plan back from its bytes, dumps it and derives every rank's
 * transfers; the derivation's steps over all ranks. */
static int64_t read_dump_bind(const relay_plan *planned)
{
    void *bytes;
    size_t len;
    relay_plan *p = NULL;
    assert_int_equal(relay_plan_encode(planned, &bytes, &len), RELAY_OK);
    if (relay_plan_decode(&p, bytes, len, -1)) fail_msg("decode: %s", relay_last_error());
    free(bytes);
    dump_all_views(p);
    int64_t work = 0;
    for (int r = 0; r < p->nranks; r++) {
        rl_nd_part part;
        if (rl_nd_part_derive(&part, p, r, RL_ND_SENDS | RL_ND_RECEIVES)) fail_msg("rank %d: %s", r, relay_last_error());
        work += part.work;
        rl_nd_part_free(&part);
    }
    relay_plan_free(p);
    return work;
}

/* pairs copies of one pair, planned; NULL when the planner refuses. */
static relay_plan *plan_pairs(int nranks, int pairs, const spec *to, const spec *from)
{
    relay_nd_layout *a = build(to), *b = build(from);
    const relay_nd_layout **as = malloc((size_t)pairs * sizeof *as), **bs = malloc((size_t)pairs * sizeof *bs);
    relay_op *ops = malloc((size_t)pairs * sizeof *ops);
    assert_true(as && bs && ops);
    for (int k = 0; k < pairs; k++) as[k] = a, bs[k] = b, ops[k] = RELAY_OP_N;
    relay_plan *p = NULL;
    if (relay_plan_nd_batch(&p, nranks, pairs, as, bs, ops, NULL, RELAY_FLOAT, NULL)) fail_msg("plan: %s", relay_last_error());
    free(as), free(bs), free(ops);
    relay_nd_layout_free(a);
    relay_nd_layout_free(b);
    return p;
}

typedef struct {
    const char *name;
    int nranks, pairs;
    spec to, from;
    int64_t max_work;      /* over every rank's derivation */
    double max_cpu_s;      /* planning, reading, dumping and deriving: 10 x what they take */
    long max_peak_kb;
    int64_t max_file_bytes;
} cost_case;

static void check_cost(const cost_case *c)
{
    usage before = now();
    relay_plan *p = plan_pairs(c->nranks, c->pairs, &c->to, &c->from);
    void *bytes;
    size_t len;
    assert_int_equal(relay_plan_encode(p, &bytes, &len), RELAY_OK);
    free(bytes);
    int64_t work = read_dump_bind(p);
    relay_plan_free(p);
    usage after = now();
    double cpu = after.cpu_s - before.cpu_s;
    printf("  %s: %zu-byte plan, %lld steps, %.3f s CPU, peak %ld KB\n", c->name, len, (long long)work, cpu, after.peak_kb);
    if ((int64_t)len > c->max_file_bytes) fail_msg("%s: the plan takes %zu bytes, not the few it should", c->name, len);
    if (work > c->max_work) fail_msg("%s: deriving the transfers took %lld steps, more than %lld", c->name, (long long)work, (long long)c->max_work);
    if (cpu > c->max_cpu_s) fail_msg("%s: %.3f s of CPU, more than %.3f", c->name, cpu, c->max_cpu_s);
    if (after.peak_kb > c->max_peak_kb) fail_msg("%s: peak memory %ld KB, more than %ld", c->name, after.peak_kb, c->max_peak_kb);
}

#define N24 ((int64_t)1 << 24)

/* [2^24, 2^24, 0] in blocks of 1 along both sharded dimensions. */
static spec empty_cube(int m0, int m1, int first_rank)
{
    spec s = {3, 2, {N24, N24, 0}, {m0, m1}, {shard(0, 1), shard(1, 1)}, NULL};
    s.ranks = consecutive(m0 * m1, first_rank);
    return s;
}

static void test_cuts_cost_what_they_move(void **state)
{
    (void)state;
    /* In order of their memory ceilings: the peak only grows. */
    cost_case cases[] = {
        {"the 455-byte plan", 1, 1, empty_cube(1, 1, 0), empty_cube(1, 1, 0), 64, 0.5, 100 * 1024, 500},
        {"8 pairs on 2 ranks", 2, 8, empty_cube(1, 2, 0), empty_cube(2, 1, 0), 64 * 8, 0.5, 100 * 1024, 3000},
        {"blocks of 1 on 2 x 2 and 3 x 1, one element deep", 4, 1, empty_cube(2, 2, 0), empty_cube(3, 1, 0), 4096, 0.5, 100 * 1024,
         1000},
        {"3,900 pairs on 2 ranks", 2, 3900, empty_cube(1, 2, 0), empty_cube(2, 1, 0), 64 * 3900, 5, 200 * 1024, 2000000},
    };
    cases[2].to.shape[2] = cases[2].from.shape[2] = 1; /* 2^48 elements: what moves is the cuts' business, not the blocks' */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        check_cost(&cases[i]);
        free(cases[i].to.ranks);
        free(cases[i].from.ranks);
    }
}

/* ---- the source replica: the rule's reference ---------------------------------------- */

/* Mesh coordinates of position `at`, the last mesh dimension fastest. */
static void coords_of(const relay_nd_layout *l, int64_t at, int *c)
{
    for (int m = l->mesh_ndims - 1; m >= 0; m--) {
        c[m] = (int)(at % l->mesh_shape[m]);
        at /= l->mesh_shape[m];
    }
}

static int64_t position_of(const relay_nd_layout *l, int rank)
{
    for (int64_t i = 0; i < l->mesh_size; i++)
        if (l->mesh_ranks[i] == rank) return i;
    return -1;
}

/* The rule, from its statement: the replicas of src's group at `coords`
 * are the mesh positions with its coordinates but along replicate mesh
 * dimensions, in increasing position (which is replica order). */
static int reference_rule(const relay_nd_layout *src, const int *coords, int dst_rank, int64_t dst_position, const int *node)
{
    int64_t n = 0, on_node = 0, *replicas = malloc((size_t)src->mesh_size * sizeof *replicas);
    assert_non_null(replicas);
    for (int64_t at = 0; at < src->mesh_size; at++) {
        int c[MAXM], same = 1;
        coords_of(src, at, c);
        for (int m = 0; m < src->mesh_ndims; m++) same &= src->place[m].kind == RELAY_REPLICATE || c[m] == coords[m];
        if (same) replicas[n++] = at;
    }
    int chosen = -1;
    int64_t turn = dst_position + replicas[0];
    for (int64_t i = 0; i < n; i++) {
        if (src->mesh_ranks[replicas[i]] == dst_rank) chosen = dst_rank;
        on_node += node && node[src->mesh_ranks[replicas[i]]] == node[dst_rank];
    }
    if (n == 1) chosen = src->mesh_ranks[replicas[0]];
    if (chosen < 0 && on_node > 0)
        for (int64_t i = 0, seen = 0; i < n; i++)
            if (node[src->mesh_ranks[replicas[i]]] == node[dst_rank] && seen++ == turn % on_node) chosen = src->mesh_ranks[replicas[i]];
    if (chosen < 0) chosen = src->mesh_ranks[replicas[turn % n]];
    free(replicas);
    return chosen;
}

/* Every transfer rank receives (and copies locally) reads the replica the
 * reference picks for its source group. */
static void check_rank_sources(const relay_plan *p, int rank, const int *node)
{
    rl_nd_part part;
    if (rl_nd_part_derive(&part, p, rank, RL_ND_RECEIVES)) fail_msg("rank %d: %s", rank, relay_last_error());
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0, n = pass ? part.nlocal : part.nrecv; i < n; i++) {
            const rl_nd_transfer *t = pass ? &part.local[i] : &part.recv[i];
            const relay_nd_layout *src = p->nd->pairs[t->pair].src, *dst = p->nd->pairs[t->pair].dst;
            int coords[MAXM];
            coords_of(src, position_of(src, t->origin), coords);
            int want = reference_rule(src, coords, rank, position_of(dst, rank), node);
            if (t->origin != want || t->peer != want)
                fail_msg("rank %d reads pair %d's group of rank %d from rank %d; the rule says %d", rank, t->pair, t->origin, t->peer, want);
        }
    rl_nd_part_free(&part);
}

static void random_side(spec *s, int nranks, int partial_ok)
{
    s->ndims = 2;
    s->shape[0] = 1 + rand() % 7;
    s->shape[1] = 1 + rand() % 5;
    s->mesh_ndims = 1 + rand() % 3;
    int size = 1, sharded[2] = {0, 0};
    for (int m = 0; m < s->mesh_ndims; m++) {
        s->mesh[m] = 1 + rand() % 3;
        while (size * s->mesh[m] > nranks) s->mesh[m]--;
        size *= s->mesh[m];
        int pick = rand() % 4, k = rand() % 2;
        if (pick < 2 && !sharded[k]) {
            s->place[m] = shard(k, rand() % 3);
            sharded[k] = 1;
        } else {
            s->place[m] = pick == 3 && partial_ok ? (relay_placement){RELAY_PARTIAL, 0, 0, NULL} : replicate();
        }
    }
    s->ranks = malloc((size_t)size * sizeof *s->ranks);
    int *pool = consecutive(nranks, 0);
    for (int i = 0; i < size; i++) { /* distinct ranks drawn from the pool */
        int j = i + rand() % (nranks - i), r = pool[j];
        pool[j] = pool[i];
        pool[i] = r;
        s->ranks[i] = r;
    }
    free(pool);
}

static void test_replicas_follow_the_rule(void **state)
{
    (void)state;
    srand(57);
    for (int trial = 0; trial < 300; trial++) {
        int nranks = 2 + rand() % 14, *node = malloc((size_t)nranks * sizeof *node);
        spec to, from;
        random_side(&to, nranks, 0);
        random_side(&from, nranks, 1);
        from.shape[0] = to.shape[0], from.shape[1] = to.shape[1];
        int map = rand() % 3, per_node = 1 + rand() % 4;
        for (int r = 0; r < nranks; r++) node[r] = map == 1 ? r / per_node : rand() % nranks;
        relay_nd_layout *a = build(&to), *b = build(&from);
        relay_plan_options o;
        relay_plan_options_init(&o);
        o.node_of_rank = map ? node : NULL;
        o.replicas = RELAY_REPLICAS_DIRECT;
        relay_plan *p = NULL;
        if (relay_plan_nd(&p, nranks, a, b, RELAY_OP_N, NULL, RELAY_FLOAT, &o)) fail_msg("trial %d: %s", trial, relay_last_error());
        for (int r = 0; r < nranks; r++) check_rank_sources(p, r, o.node_of_rank);
        relay_plan_free(p);
        relay_nd_layout_free(a);
        relay_nd_layout_free(b);
        free(to.ranks), free(from.ranks), free(node);
    }
}

/* ---- the source replica with a node map: a table, not a scan ------------------------------ */

/* One element replicated on K ranks (0..K-1) to K others (K..2K-1): rank
 * 0's transfers, derived with node_of_rank (NULL: none). */
static int64_t derive_rank0(relay_plan *p, const int32_t *node_of_rank, int64_t *sent_to)
{
    p->nd->node_of_rank = (int32_t *)node_of_rank;
    rl_nd_part part;
    relay_status st = rl_nd_part_derive(&part, p, 0, RL_ND_SENDS | RL_ND_RECEIVES);
    p->nd->node_of_rank = NULL;
    if (st) fail_msg("rank 0: %s", relay_last_error());
    assert_int_equal(part.nsend, 1);
    *sent_to = part.send[0].peer;
    int64_t work = part.work;
    rl_nd_part_free(&part);
    return work;
}

static void test_node_map_costs_at_most_twice(void **state)
{
    (void)state;
    enum { K = 65536 };
    spec to = {1, 1, {1}, {K}, {replicate()}, consecutive(K, K)}, from = {1, 1, {1}, {K}, {replicate()}, consecutive(K, 0)};
    relay_plan *p = NULL;
    assert_int_equal(rl_nd_plan_new(&p, 2 * K, 1, RELAY_FLOAT), RELAY_OK); /* the planner would derive all 2K ranks */
    p->nd->pairs[0] = (rl_nd_pair){.op = RELAY_OP_N, .perm = {0}, .dst = build(&to), .src = build(&from)};
    int32_t *one_node = calloc(2 * K, sizeof *one_node);
    assert_non_null(one_node);
    int64_t peer_plain, peer_mapped;
    usage t0 = now();
    int64_t plain = derive_rank0(p, NULL, &peer_plain);
    usage t1 = now();
    int64_t mapped = derive_rank0(p, one_node, &peer_mapped);
    usage t2 = now();
    double cpu_plain = t1.cpu_s - t0.cpu_s, cpu_mapped = t2.cpu_s - t1.cpu_s;
    printf("  K = %d: %lld steps and %.3f s without a node map, %lld and %.3f s with one\n", K, (long long)plain, cpu_plain,
           (long long)mapped, cpu_mapped);
    assert_int_equal(peer_plain, K); /* the receiver at position 0 reads replica 0 either way */
    assert_int_equal(peer_mapped, K);
    if (mapped > 2 * plain) fail_msg("with a node map rank 0 took %lld steps, more than twice %lld", (long long)mapped, (long long)plain);
    if (cpu_mapped > 10 * (2 * cpu_plain + 0.01)) /* a ceiling ten times the target, not a speed test */
        fail_msg("with a node map rank 0 took %.3f s of CPU, far more than twice %.3f", cpu_mapped, cpu_plain);
    free(one_node);
    free(to.ranks), free(from.ranks);
    relay_plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuts_cost_what_they_move),
        cmocka_unit_test(test_replicas_follow_the_rule),
        cmocka_unit_test(test_node_map_costs_at_most_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
