/* test_predict.c — relay_plan_predict (relay/predict.h) against closed
 * forms.  Plans are built section by section (messages of chosen bytes
 * between chosen ranks, in chosen steps), the machine is a `star` (every
 * node one link to one crossbar: a message between two nodes crosses two
 * links) or a `node`, and SimGrid runs its CM02 model without correction
 * factors, so that every time below is a formula of the machine's numbers:
 *
 *   one message of S bytes between two nodes: 2 l + S / b on the wire;
 *   k equal messages into one node share its link: 2 l + k S / b;
 *   a ring of n ranks in n - 1 rounds: (n - 1) (pack + 2 l + S / b + unpack),
 *     all at once (p2p): (n - 1) (pack + S / b + unpack) + 2 l;
 *   packing, unpacking, copying: bytes / memory_bandwidth + pieces * piece_seconds,
 *     each message sent message_seconds more;
 *   alltoallv waits for every rank at its entry and exit, neighbor does not;
 *   a 1 x 2 SUMMA step's broadcast: 2 l + S / b (binomial), 4 l + S / b (Van
 *     de Geijn: half scattered, then the halves cross), with its panel
 *     copies and a gemm of 2 m n k / gemm_flops; one step simulated alone;
 *     a 1 x 4 binomial broadcast: 2 (2 l + S / b);
 *   a BMMC round on two ranks: W's copy, one message each way, the placing;
 *   an N-D plan's one message as a transform plan's; a replica passing a
 *     message on as it lands: one more message time, without packing; a
 *     3-D transfer packed and unpacked at piece_seconds per rectangle of
 *     the executor's walk: the outer dimension's length times the runs
 *     of the two inner ones.
 *
 * Every value is checked to 1e-9 relative, so a model that drops or
 * doubles a term fails.  The transform replay's closed forms (and a fat
 * tree's: routes of 2 and 4 links, messages that share a link or not) run
 * on both engines, SimGrid's and relay's own (RELAY_PREDICT_ENGINE=fluid),
 * and the two are held to each other on a 48-rank plan.  Also: the schedules a plan can be predicted with,
 * every schedule as a tuning (relay_predict_tuning), and bad machine files
 * and requests, which change nothing. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "plan_internal.h"
#include "relay/predict.h"
#include "relay/relay.h"

/* The star every closed form uses: one rank per node. */
static const double mem_bw = 1e10, link_bw = 1e9, link_lat = 1e-6, node_bw = 4e9, node_lat = 2e-7;
static const char star[] = "topology = star\n"
                           "ranks_per_node = 1\n"
                           "memory_bandwidth = 1e10\n"
                           "link_bandwidth = 1e9   # per direction\n"
                           "link_latency = 1e-6\n"
                           "node_bandwidth = 4e9\n"
                           "node_latency = 2e-7\n";
static const int64_t S = 1000000; /* bytes of a message: 125,000 doubles */

static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-9 * fabs(want) + 1e-15) fail_msg("predicted %.15g s, the closed form %.15g s", got, want);
}

/* ---- machines and plans --------------------------------------------------- */

/* A temporary machine file holding text; the caller unlinks it. */
static char *machine_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_predict-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* A transform plan of nranks ranks (doubles) with empty sections. */
static relay_plan *empty_plan(int nranks, relay_schedule schedule, int rounds)
{
    relay_plan *p = rl_plan_alloc(nranks, 1);
    assert_non_null(p);
    p->type = RELAY_DOUBLE;
    p->schedule = schedule;
    p->rounds = rounds;
    for (int r = 0; r < nranks; r++) {
        p->sections[r] = rl_section_alloc(r, 1);
        assert_non_null(p->sections[r]);
    }
    return p;
}

/* Appends a message of one lattice of `pieces` pieces to one side of a section. */
static void add_side(rl_section *s, int send, int peer, int64_t bytes, int64_t pieces, int64_t step, int with_rounds)
{
    int32_t *n = send ? &s->nsend : &s->nrecv;
    rl_message **msgs = send ? &s->send : &s->recv;
    int64_t *nspans = send ? &s->nsend_spans : &s->nrecv_spans;
    rl_span **spans = send ? &s->send_spans : &s->recv_spans;
    int64_t **round = send ? &s->send_round : &s->recv_round;
    *msgs = realloc(*msgs, (size_t)(*n + 1) * sizeof **msgs);
    *spans = realloc(*spans, (size_t)(*nspans + 1) * sizeof **spans);
    int64_t elems = bytes / 8;
    (*msgs)[*n] = (rl_message){peer, *nspans, 1, elems};
    (*spans)[*nspans] = (rl_span){0, elems / pieces, 1, pieces, 1, 0, elems / pieces, 0, elems, 0};
    if (with_rounds) {
        *round = realloc(*round, (size_t)(*n + 1) * sizeof **round);
        (*round)[*n] = step;
    }
    (*n)++;
    (*nspans)++;
}

static void add_message(relay_plan *p, int from, int to, int64_t bytes, int64_t step)
{
    int rounds = p->schedule == RELAY_SCHED_ROUNDS;
    add_side(p->sections[from], 1, to, bytes, 1, step, rounds);
    add_side(p->sections[to], 0, from, bytes, 1, step, rounds);
}

/* rank's local copy: count_r x 1 pieces of `rows` doubles each. */
static void add_local(relay_plan *p, int rank, int64_t rows, int64_t count_r)
{
    rl_section *s = p->sections[rank];
    s->local = malloc(sizeof *s->local);
    s->local[0] = (rl_local_span){0, rows, 1, count_r, 1, 0, rows, 0, rows * count_r, 0, rows, 0, rows * count_r};
    s->nlocal = 1;
}

/* Predicts p on the machine text with schedule; rank_seconds may be NULL. */
/* relay_plan_predict, or with hsumma_steps >= 0 relay_plan_predict_hsumma
 * of that many steps; fails the test when it fails. */
static relay_prediction predict_steps(const relay_plan *p, const char *machine, relay_schedule schedule,
                                      int64_t hsumma_steps, double *rank_seconds)
{
    char *path = machine_file(machine);
    relay_prediction out;
    relay_status st = hsumma_steps < 0 ? relay_plan_predict(p, path, schedule, &out, rank_seconds)
                                       : relay_plan_predict_hsumma(p, path, hsumma_steps, &out, rank_seconds);
    unlink(path);
    if (st) fail_msg("predicting: %s", relay_last_error());
    return out;
}

static relay_prediction predict(const relay_plan *p, const char *machine, relay_schedule schedule, double *rank_seconds)
{
    return predict_steps(p, machine, schedule, -1, rank_seconds);
}

/* ---- closed forms --------------------------------------------------------- */

static double copy(int64_t bytes) { return (double)bytes / mem_bw; }

static void one_message_is_latency_plus_size_over_bandwidth(void **state)
{
    relay_plan *p = empty_plan(2, RELAY_SCHED_P2P, 1);
    add_message(p, 0, 1, S, 0);
    double ranks[2];
    relay_prediction out = predict(p, star, RELAY_SCHED_AUTO, ranks);
    double wire = 2 * link_lat + (double)S / link_bw;    /* 1.002 ms */
    assert_int_equal(out.schedule, RELAY_SCHED_P2P);
    assert_int_equal(out.messages, 1);
    assert_int_equal(out.nslowest, 1);
    assert_int_equal(out.slowest[0].from, 0);
    assert_int_equal(out.slowest[0].to, 1);
    assert_int_equal(out.slowest[0].bytes, S);
    assert_close(out.slowest[0].seconds, wire);
    assert_close(ranks[0], copy(S) + wire);               /* the sender: pack, then its send completes */
    assert_close(ranks[1], copy(S) + wire + copy(S));     /* the receiver unpacks it */
    assert_close(out.seconds, ranks[1]);
    assert_int_equal(out.slowest_rank, 1);
    relay_plan_free(p);
}

static void k_messages_through_one_link_take_k_times_as_long(void **state)
{
    enum { K = 4 };
    relay_plan *p = empty_plan(K + 1, RELAY_SCHED_P2P, 1);
    for (int r = 1; r <= K; r++) add_message(p, r, 0, S, 0); /* all into rank 0's link */
    double ranks[K + 1];
    relay_prediction out = predict(p, star, RELAY_SCHED_P2P, ranks);
    double wire = 2 * link_lat + K * (double)S / link_bw;
    assert_int_equal(out.messages, K);
    for (int i = 0; i < K; i++) assert_close(out.slowest[i].seconds, wire);
    for (int r = 1; r <= K; r++) assert_close(ranks[r], copy(S) + wire);
    assert_close(ranks[0], copy(S) + wire + K * copy(S));  /* they land together, then K unpacks */
    relay_plan_free(p);
}

/* Rank r sends S to r + s + 1 (mod n) in step s: a contention-free ring. */
static relay_plan *ring(int n, relay_schedule schedule)
{
    relay_plan *p = empty_plan(n, schedule, n - 1);
    for (int s = 0; s < n - 1; s++)
        for (int r = 0; r < n; r++) add_message(p, r, (r + s + 1) % n, S, s);
    return p;
}

static void a_ring_of_rounds_pays_the_latency_each_round(void **state)
{
    enum { N = 4 };
    relay_plan *p = ring(N, RELAY_SCHED_ROUNDS);
    double ranks[N];
    relay_prediction rounds = predict(p, star, RELAY_SCHED_ROUNDS, ranks);
    double step = copy(S) + 2 * link_lat + (double)S / link_bw + copy(S);
    for (int r = 0; r < N; r++) assert_close(ranks[r], (N - 1) * step);
    assert_close(rounds.seconds, (N - 1) * step);
    for (int i = 0; i < rounds.nslowest; i++) assert_close(rounds.slowest[i].seconds, 2 * link_lat + (double)S / link_bw);
    /* All at once: each link carries N - 1 messages, the latency paid once. */
    relay_prediction p2p = predict(p, star, RELAY_SCHED_P2P, ranks);
    assert_close(p2p.seconds, (N - 1) * (copy(S) + (double)S / link_bw + copy(S)) + 2 * link_lat);
    relay_plan_free(p);
}

static void packing_is_bytes_over_memory_bandwidth_plus_pieces(void **state)
{
    /* One node: a local copy of 6 pieces, and a message of S bytes to the
     * other rank of the node (loopback: node latency and bandwidth). */
    static const char node[] = "topology = node\nranks_per_node = 2\nmemory_bandwidth = 1e10\n"
                               "piece_seconds = 1e-6\nmessage_seconds = 5e-6\nnode_bandwidth = 4e9\nnode_latency = 2e-7\n";
    relay_plan *p = empty_plan(2, RELAY_SCHED_P2P, 1);
    add_local(p, 0, 1000, 6);                       /* 6 pieces of 1000 doubles */
    add_message(p, 0, 1, S, 0);
    double ranks[2];
    relay_prediction out = predict(p, node, RELAY_SCHED_P2P, ranks);
    double local = copy(6 * 1000 * 8) + 6 * 1e-6;
    double pack = copy(S) + 1e-6 + 5e-6, wire = node_lat + (double)S / node_bw;
    assert_close(out.slowest[0].seconds, wire);
    assert_close(ranks[0], pack + local > pack + wire ? pack + local : pack + wire); /* copies while it flies */
    assert_close(ranks[1], pack + wire + copy(S) + 1e-6);
    relay_plan_free(p);
}

static void alltoallv_waits_for_every_rank_neighbor_does_not(void **state)
{
    relay_plan *p = empty_plan(3, RELAY_SCHED_P2P, 1);
    add_message(p, 0, 1, S, 0);                     /* rank 2 moves nothing */
    double ranks[3];
    double wire = 2 * link_lat + (double)S / link_bw;
    predict(p, star, RELAY_SCHED_NEIGHBOR, ranks);
    assert_close(ranks[2], 0);
    assert_close(ranks[1], copy(S) + wire + copy(S));
    predict(p, star, RELAY_SCHED_ALLTOALLV, ranks);
    assert_close(ranks[2], copy(S) + wire);          /* leaves the collective with the others */
    assert_close(ranks[1], copy(S) + wire + copy(S));
    relay_plan_free(p);
}

/* Two ranks of one node copy locally at once: on one core between them
 * each takes twice as long, on two cores as long as alone. */
static void ranks_share_their_nodes_cores(void **state)
{
    static const char one_core[] = "topology = node\nranks_per_node = 2\ncores_per_node = 1\nmemory_bandwidth = 1e10\n"
                                   "node_bandwidth = 4e9\nnode_latency = 2e-7\n";
    static const char two_cores[] = "topology = node\nranks_per_node = 2\ncores_per_node = 2\nmemory_bandwidth = 1e10\n"
                                    "node_bandwidth = 4e9\nnode_latency = 2e-7\n";
    relay_plan *p = empty_plan(2, RELAY_SCHED_P2P, 1);
    add_local(p, 0, 1000, 6);
    add_local(p, 1, 1000, 6);
    double ranks[2];
    predict(p, one_core, RELAY_SCHED_P2P, ranks);
    assert_close(ranks[0], 2 * copy(6 * 1000 * 8));
    assert_close(ranks[1], 2 * copy(6 * 1000 * 8));
    predict(p, two_cores, RELAY_SCHED_P2P, ranks);
    assert_close(ranks[0], copy(6 * 1000 * 8));
    relay_plan_free(p);
}

/* A pair whose op transposes copies at transpose_bandwidth: locally, and
 * unpacking (the receiver transposes; the sender packs in B's order). */
static void transposes_move_at_the_transpose_bandwidth(void **state)
{
    static const char node[] = "topology = node\nranks_per_node = 2\nmemory_bandwidth = 1e10\ntranspose_bandwidth = 2.5e9\n"
                               "node_bandwidth = 4e9\nnode_latency = 2e-7\n";
    relay_plan *p = empty_plan(2, RELAY_SCHED_P2P, 1);
    p->pairs[0].op = RELAY_OP_T;
    add_local(p, 0, 1000, 6);
    add_message(p, 1, 0, S, 0);
    double ranks[2];
    predict(p, node, RELAY_SCHED_P2P, ranks);
    double local = 6 * 1000 * 8 / 2.5e9, wire = node_lat + (double)S / node_bw;
    double landed = copy(S) + wire;
    assert_close(ranks[1], landed);                                   /* packs in B's order, sends */
    assert_close(ranks[0], (local > landed ? local : landed) + (double)S / 2.5e9);
    relay_plan_free(p);
}

/* A fat tree of 4-port switches (2 down, 2 up), one rank a node: nodes 0
 * and 1 under one leaf switch, 2 and 3 under the other.  Within a leaf a
 * message crosses 2 links, between leaves 4 (up to a top switch, chosen by
 * the destination: node t through parent t mod 2, and down).  Two messages
 * from one leaf to different nodes of the other go up different links and
 * take as long as one; two into one node share its link. */
static const char fat_tree[] = "topology = fat-tree\nswitch_radix = 4\nranks_per_node = 1\nmemory_bandwidth = 1e10\n"
                               "link_bandwidth = 1e9\nlink_latency = 1e-6\nnode_bandwidth = 4e9\nnode_latency = 2e-7\n";

static void check_messages(const int (*pairs)[2], int n, double wire)
{
    relay_plan *p = empty_plan(4, RELAY_SCHED_P2P, 1);
    for (int k = 0; k < n; k++) add_message(p, pairs[k][0], pairs[k][1], S, 0);
    double ranks[4];
    relay_prediction out = predict(p, fat_tree, RELAY_SCHED_P2P, ranks);
    assert_int_equal(out.messages, n);
    for (int k = 0; k < n; k++) assert_close(out.slowest[k].seconds, wire);
    assert_close(ranks[pairs[0][0]], copy(S) + wire);
    assert_close(out.seconds, copy(S) + wire + (pairs[0][1] == pairs[n - 1][1] ? n : 1) * copy(S));
    relay_plan_free(p);
}

static void fat_tree_routes_share_the_links_they_cross(void **state)
{
    double one = (double)S / link_bw;
    check_messages((const int[][2]){{0, 1}}, 1, 2 * link_lat + one);
    check_messages((const int[][2]){{0, 2}}, 1, 4 * link_lat + one);
    check_messages((const int[][2]){{0, 2}, {1, 3}}, 2, 4 * link_lat + one);
    check_messages((const int[][2]){{0, 2}, {1, 2}}, 2, 4 * link_lat + 2 * one);
}

/* ---- the two engines ------------------------------------------------------ */

static int on_fluid_engine(void **state) { return setenv("RELAY_PREDICT_ENGINE", "fluid", 1); }
static int off_fluid_engine(void **state) { return unsetenv("RELAY_PREDICT_ENGINE"); }

static relay_layout *bc(int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol, relay_order grid)
{
    relay_layout *l = NULL;
    assert_int_equal(relay_layout_block_cyclic(&l, m, n, mb, nb, nprow, npcol, grid, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    return l;
}

/* A 48-rank copy between uneven block-cyclic layouts (messages of many
 * sizes) on 24 nodes under a 5-level tree of 4-port switches, routes of 2
 * to 10 links: SimGrid and relay's engine agree to 1e-3 on every schedule
 * (they solve the same weighted max-min sharing; relay's takes activities
 * ending within 3e-4 of their duration together).  Shared equally instead
 * of by latency, p2p differed by 6.5%. */
static void the_engines_agree_on_a_fat_tree(void **state)
{
    static const char tree[] = "topology = fat-tree\nswitch_radix = 4\nranks_per_node = 2\nmemory_bandwidth = 6e9\n"
                               "piece_seconds = 5e-9\nmessage_seconds = 5e-7\nlink_bandwidth = 12.5e9\n"
                               "link_latency = 1.5e-7\nnode_bandwidth = 8e9\nnode_latency = 3e-7\n";
    relay_layout *src = bc(3001, 2000, 7, 16, 6, 8, RELAY_ROW_MAJOR), *dst = bc(3001, 2000, 100, 64, 8, 6, RELAY_ROW_MAJOR);
    relay_plan *p = NULL;
    assert_int_equal(relay_plan_transform(&p, 48, dst, src, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_OK);
    relay_schedule schedules[] = {RELAY_SCHED_P2P, RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR};
    for (int k = 0; k < 3; k++) {
        relay_prediction fluid = predict(p, tree, schedules[k], NULL);
        setenv("RELAY_PREDICT_ENGINE", "simgrid", 1);
        relay_prediction simgrid = predict(p, tree, schedules[k], NULL);
        setenv("RELAY_PREDICT_ENGINE", "fluid", 1);
        assert_int_equal(fluid.messages, simgrid.messages);
        if (fabs(fluid.seconds - simgrid.seconds) > 1e-3 * simgrid.seconds)
            fail_msg("schedule %d: relay's engine predicts %.9g s, SimGrid %.9g s", schedules[k], fluid.seconds, simgrid.seconds);
    }
    relay_plan_free(p);
    relay_layout_free(src);
    relay_layout_free(dst);
}

/* RELAY_PREDICT_ENGINE takes simgrid or fluid, and fluid only for
 * transform plans on machines it models; a refusal changes nothing. */
static void the_fluid_engine_is_asked_for_plainly(void **state)
{
    static const char torus[] = "topology = torus\nranks_per_node = 1\nmemory_bandwidth = 1e10\n"
                                "link_bandwidth = 1e9\nlink_latency = 1e-6\nnode_bandwidth = 4e9\nnode_latency = 2e-7\n";
    relay_plan *p = empty_plan(2, RELAY_SCHED_P2P, 1);
    add_message(p, 0, 1, S, 0);
    relay_prediction out = {.seconds = 42};
    char *path = machine_file(torus);
    assert_int_equal(relay_plan_predict(p, path, RELAY_SCHED_P2P, &out, NULL), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "fat-tree"));
    unlink(path);
    setenv("RELAY_PREDICT_ENGINE", "maxmin", 1);
    path = machine_file(star);
    assert_int_equal(relay_plan_predict(p, path, RELAY_SCHED_P2P, &out, NULL), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "simgrid or fluid"));
    unlink(path);
    setenv("RELAY_PREDICT_ENGINE", "fluid", 1);
    assert_true(out.seconds == 42);
    relay_plan_free(p);
}

/* ---- schedules and refusals ---------------------------------------------- */

static void schedules_follow_the_plan(void **state)
{
    relay_schedule s[RELAY_PREDICT_MAX_SCHEDULES];
    int n;
    relay_plan *p = ring(3, RELAY_SCHED_P2P);
    assert_int_equal(relay_predict_schedules(p, s, &n), RELAY_OK);
    assert_int_equal(n, 3);
    assert_int_equal(s[0], RELAY_SCHED_P2P);
    assert_int_equal(s[1], RELAY_SCHED_ALLTOALLV);
    assert_int_equal(s[2], RELAY_SCHED_NEIGHBOR);
    relay_plan_free(p);
    p = ring(3, RELAY_SCHED_ROUNDS);
    assert_int_equal(relay_predict_schedules(p, s, &n), RELAY_OK);
    assert_int_equal(n, 4);
    assert_int_equal(s[1], RELAY_SCHED_ROUNDS);
    p->max_buffer_bytes = 1 << 20;                  /* capped: rounds alone */
    assert_int_equal(relay_predict_schedules(p, s, &n), RELAY_OK);
    assert_int_equal(n, 1);
    assert_int_equal(s[0], RELAY_SCHED_ROUNDS);
    relay_plan_free(p);
}

/* Every schedule of a rounds ring as a tuning: the closed forms' seconds,
 * p2p the fastest (the latency paid once), the job shape of 3 ranks a node
 * over 4 ranks, the machine file's name; a tuning the plan can carry. */
static void predictions_as_a_tuning(void **state)
{
    static const char three_a_node[] = "topology = star\nranks_per_node = 3\nmemory_bandwidth = 1e10\n"
                                       "link_bandwidth = 1e9\nlink_latency = 1e-6\nnode_bandwidth = 4e9\nnode_latency = 2e-7\n";
    relay_plan *p = ring(4, RELAY_SCHED_ROUNDS);
    char *path = machine_file(three_a_node);
    relay_tuning t;
    relay_status st = relay_predict_tuning(p, path, &t);
    if (st) fail_msg("relay_predict_tuning: %s", relay_last_error());
    assert_int_equal(t.ntimed, 4);
    assert_int_equal(t.best, 0);
    assert_int_equal(t.choices[0].schedule, RELAY_SCHED_P2P);
    assert_int_equal(t.choices[1].schedule, RELAY_SCHED_ROUNDS);
    for (int k = 0; k < 4; k++) {
        relay_prediction one;
        assert_int_equal(relay_plan_predict(p, path, t.choices[k].schedule, &one, NULL), RELAY_OK);
        assert_close(t.choices[k].seconds, one.seconds);
        assert_int_equal(t.choices[k].packed, 0);
    }
    assert_int_equal(t.ranks_per_node_min, 1);
    assert_int_equal(t.ranks_per_node_max, 3);
    assert_int_equal(t.replays, 1);
    assert_string_equal(t.machine, strrchr(path, '/') + 1);
    assert_int_equal(relay_plan_set_tuning(p, &t), RELAY_OK);
    relay_tuning kept = {.ntimed = 42};
    assert_int_equal(relay_predict_tuning(NULL, path, &kept), RELAY_ERR_ARG);
    assert_int_equal(relay_predict_tuning(p, "/nonexistent/machine", &kept), RELAY_ERR_IO);
    assert_int_equal(kept.ntimed, 42);
    unlink(path);
    relay_plan_free(p);
}

/* relay_plan_predict fails with want, naming `words`, and leaves out alone. */
static void assert_refused(const relay_plan *p, const char *machine, relay_schedule schedule, relay_status want,
                           const char *words)
{
    char *path = machine ? machine_file(machine) : NULL;
    relay_prediction out = {.seconds = 42};
    double ranks[1] = {42};
    relay_status st = relay_plan_predict(p, path ? path : "/nonexistent/machine", schedule, &out, ranks);
    if (path) unlink(path);
    assert_int_equal(st, want);
    if (!strstr(relay_last_error(), words)) fail_msg("error \"%s\" does not say \"%s\"", relay_last_error(), words);
    assert_true(out.seconds == 42 && ranks[0] == 42);
}

static void bad_requests_change_nothing(void **state)
{
    relay_plan *p = empty_plan(1, RELAY_SCHED_P2P, 1);
    assert_refused(p, NULL, RELAY_SCHED_P2P, RELAY_ERR_IO, "cannot open");
    assert_refused(p, "topology = star\n", RELAY_SCHED_P2P, RELAY_ERR_FORMAT, "ranks_per_node is missing");
    assert_refused(p, "topology = ring\n", RELAY_SCHED_P2P, RELAY_ERR_FORMAT, ":1: topology");
    assert_refused(p, "# a comment\nranks_per_node = 0\n", RELAY_SCHED_P2P, RELAY_ERR_FORMAT, ":2: ranks_per_node");
    assert_refused(p, "colour = blue\n", RELAY_SCHED_P2P, RELAY_ERR_FORMAT, "unknown key `colour`");
    assert_refused(p, star, RELAY_SCHED_ROUNDS, RELAY_ERR_ARG, "rounds needs a plan made with rounds");
    rl_section_free(p->sections[0]);
    p->sections[0] = NULL;
    assert_refused(p, star, RELAY_SCHED_P2P, RELAY_ERR_ARG, "lacks rank 0's section");
    relay_plan_free(p);
    relay_prediction out;
    assert_int_equal(relay_plan_predict(NULL, "x", RELAY_SCHED_P2P, &out, NULL), RELAY_ERR_ARG);
}

/* ---- SUMMA, HSUMMA and BMMC ---------------------------------------------- */

/* A 1 x q SUMMA of doubles: A is 4000 x 32q (32 columns on each rank), B
 * 32q x q, C 4000 x q; k = 32q in q outer steps of 32, each one inner
 * step: rank i copies its A panel (S bytes), every rank its B panel (one
 * row of 32), rank i broadcasts the panel to the others, all multiply. */
enum { SUMMA_M = 4000, SUMMA_W = 32 };
static const int64_t summa_S = (int64_t)SUMMA_M * SUMMA_W * 8; /* 1,024,000 bytes */

static relay_plan *summa_1xq(int q, relay_bcast_model bcast)
{
    relay_hsumma_params hp;
    relay_plan *p = NULL;
    assert_int_equal(relay_hsumma_params_init(&hp, SUMMA_M, q, q * SUMMA_W, 1, q, RELAY_DOUBLE), RELAY_OK);
    hp.group_rows = hp.group_cols = 1;
    hp.inner_block = hp.outer_block = 64;
    hp.network.bcast = bcast;
    assert_int_equal(relay_plan_hsumma(&p, &hp), RELAY_OK);
    return p;
}

/* star with gemm_flops = 1e9. */
static char *star_gemm(void)
{
    static char text[sizeof star + 32];
    snprintf(text, sizeof text, "%sgemm_flops = 1e9\n", star);
    return text;
}

/* One step's broadcast costs `bcast` (from its root's posting) and every
 * rank leaves it at once; a receiver waits for the root's A copy too.  Per
 * rank: C scaled once, a B copy and a gemm a step, one A copy; the rank
 * with the most time in broadcasts received in `receiving` steps. */
static void check_summa(const relay_prediction *out, const double *ranks, double bcast, int steps, int receiving)
{
    double scale_c = copy(SUMMA_M * 8), a_copy = copy(summa_S), b_copy = copy(SUMMA_W * 8);
    double gemm = 2.0 * SUMMA_M * SUMMA_W / 1e9;
    double step = a_copy + b_copy + bcast + gemm;
    assert_close(out->seconds, scale_c + steps * step);
    assert_close(ranks[0], scale_c + steps * step);
    assert_close(ranks[1], scale_c + steps * step);
    /* The most in broadcasts: a receiver, who waits for the root's A copy
     * too; the most computing: a root, who copies its A panel. */
    assert_close(out->comm_seconds, steps * bcast + receiving * a_copy);
    assert_close(out->compute_seconds, scale_c + steps * (b_copy + gemm) + a_copy);
    assert_int_equal(out->steps, steps);
    assert_int_equal(out->group_rows, 1);
    assert_int_equal(out->group_cols, 1);
}

static void a_1x2_summa_broadcast_is_latency_plus_size_over_bandwidth(void **state)
{
    relay_plan *p = summa_1xq(2, RELAY_BCAST_BINOMIAL);
    double ranks[2], wire = 2 * link_lat + (double)summa_S / link_bw;
    relay_prediction out = predict(p, star_gemm(), RELAY_SCHED_AUTO, ranks);
    assert_int_equal(out.schedule, RELAY_SCHED_AUTO);
    assert_int_equal(out.messages, 2);
    assert_int_equal(out.slowest[0].bytes, summa_S);
    assert_close(out.slowest[0].seconds, wire);
    check_summa(&out, ranks, wire, 2, 1);
    relay_prediction one = predict_steps(p, star_gemm(), RELAY_SCHED_AUTO, 1, ranks);
    assert_int_equal(one.messages, 1);
    check_summa(&one, ranks, wire, 1, 1);
    relay_plan_free(p);
}

/* Van de Geijn over two ranks: the root scatters half, then the two halves
 * cross: two latencies and the whole message once (Table II: log2 q + q - 1
 * latencies, 2 (q - 1) / q of the bytes). */
static void a_1x2_van_de_geijn_broadcast_pays_two_latencies(void **state)
{
    relay_plan *p = summa_1xq(2, RELAY_BCAST_VAN_DE_GEIJN);
    double ranks[2], half = 2 * link_lat + (double)summa_S / 2 / link_bw;
    relay_prediction out = predict(p, star_gemm(), RELAY_SCHED_AUTO, ranks);
    assert_int_equal(out.messages, 6);
    assert_int_equal(out.slowest[0].bytes, summa_S / 2);
    assert_close(out.slowest[0].seconds, half);
    check_summa(&out, ranks, 2 * half, 2, 1);
    relay_plan_free(p);
}

/* A binomial tree over four ranks: the root sends to relative rank 2,
 * then to 1, while 2 sends to 3 (other links of the star): two rounds of
 * the whole panel, log2 q (2 l + S / b), every message its own wire time. */
static void a_binomial_broadcast_over_four_takes_two_rounds(void **state)
{
    relay_plan *p = summa_1xq(4, RELAY_BCAST_BINOMIAL);
    double ranks[4], wire = 2 * link_lat + (double)summa_S / link_bw;
    relay_prediction out = predict(p, star_gemm(), RELAY_SCHED_AUTO, ranks);
    assert_int_equal(out.messages, 12);
    assert_close(out.slowest[0].seconds, wire);
    assert_close(out.slowest[RELAY_PREDICT_SLOWEST - 1].seconds, wire);
    check_summa(&out, ranks, 2 * wire, 4, 3);
    assert_close(ranks[3], out.seconds);
    relay_plan_free(p);
}

/* Vector reversal on two ranks: each rank's whole buffer (2^16 doubles)
 * goes to the other, both ways at once: W's scattering copy, one message,
 * the placing copy. */
static void a_bmmc_round_is_one_message(void **state)
{
    relay_bmmc perm;
    relay_plan *p = NULL;
    assert_int_equal(relay_bmmc_vector_reversal(&perm, 17), RELAY_OK);
    assert_int_equal(relay_plan_bmmc(&p, &perm, 1, 16, 8), RELAY_OK);
    int64_t bytes = ((int64_t)1 << 16) * 8;
    double ranks[2], wire = 2 * link_lat + (double)bytes / link_bw;
    relay_prediction out = predict(p, star, RELAY_SCHED_AUTO, ranks);
    assert_int_equal(out.schedule, RELAY_SCHED_AUTO);
    assert_int_equal(out.messages, 2);
    assert_int_equal(out.slowest[0].bytes, bytes);
    assert_close(out.slowest[0].seconds, wire);
    assert_close(out.seconds, 2 * copy(bytes) + wire);
    assert_close(ranks[0], 2 * copy(bytes) + wire);
    assert_close(out.comm_seconds, 0);
    relay_plan_free(p);
}

/* ---- N-D plans -------------------------------------------------------------- */

/* A layout of `shape` (ndims dimensions) on the 1-D mesh of the `count`
 * ranks from `first`, placed by `place`, stored in `order`. */
static relay_nd_layout *on_ranks(int ndims, const int64_t *shape, int first, int count, relay_placement place,
                                 relay_order order)
{
    int mesh[1] = {count}, ranks[4];
    for (int i = 0; i < count; i++) ranks[i] = first + i;
    relay_nd_desc d = {ndims, shape, 1, mesh, ranks, &place, order, NULL};
    relay_nd_layout *l = NULL;
    assert_int_equal(relay_nd_layout_create(&l, &d), RELAY_OK);
    return l;
}

/* A 1-D layout of n doubles on the mesh of the `count` ranks from `first`,
 * sharded or replicated. */
static relay_nd_layout *line(int64_t n, int first, int count, relay_placement_kind kind)
{
    int64_t shape[1] = {n};
    return on_ranks(1, shape, first, count, (relay_placement){kind, 0, 0, NULL}, RELAY_ROW_MAJOR);
}

/* The N-D plan A := B on nranks ranks; frees the layouts. */
static relay_plan *nd_plan(int nranks, relay_nd_layout *dst, relay_nd_layout *src, relay_replicas replicas)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.replicas = replicas;
    relay_plan *p = NULL;
    assert_int_equal(relay_plan_nd(&p, nranks, dst, src, RELAY_OP_N, NULL, RELAY_DOUBLE, &o), RELAY_OK);
    relay_nd_layout_free(dst);
    relay_nd_layout_free(src);
    return p;
}

/* An N-D plan moving a 1-D array from rank 0 to rank 1 replays p2p alone:
 * one message, packed, sent and unpacked as a transform plan's; with
 * message_seconds and piece_seconds, one message and one piece each way. */
static void an_nd_message_is_packing_latency_size_over_bandwidth_unpacking(void **state)
{
    relay_plan *p = nd_plan(2, line(S / 8, 1, 1, RELAY_SHARD), line(S / 8, 0, 1, RELAY_SHARD), RELAY_REPLICAS_AUTO);
    relay_schedule s[RELAY_PREDICT_MAX_SCHEDULES];
    int n;
    assert_int_equal(relay_predict_schedules(p, s, &n), RELAY_OK);
    assert_int_equal(n, 1);
    assert_int_equal(s[0], RELAY_SCHED_P2P);
    double ranks[2], wire = 2 * link_lat + (double)S / link_bw;
    relay_prediction out = predict(p, star, RELAY_SCHED_AUTO, ranks);
    assert_int_equal(out.schedule, RELAY_SCHED_P2P);
    assert_int_equal(out.messages, 1);
    assert_int_equal(out.slowest[0].from, 0);
    assert_int_equal(out.slowest[0].to, 1);
    assert_int_equal(out.slowest[0].bytes, S);
    assert_close(out.slowest[0].seconds, wire);
    assert_close(ranks[0], copy(S) + wire);
    assert_close(ranks[1], copy(S) + wire + copy(S));
    assert_close(out.seconds, ranks[1]);
    assert_int_equal(out.slowest_rank, 1);
    char costly[sizeof star + 64];
    snprintf(costly, sizeof costly, "%smessage_seconds = 3e-5\npiece_seconds = 2e-6\n", star);
    out = predict(p, costly, RELAY_SCHED_P2P, ranks);
    assert_close(ranks[1], 2 * (copy(S) + 2e-6) + 3e-5 + wire);
    assert_refused(p, star, RELAY_SCHED_ROUNDS, RELAY_ERR_ARG, "p2p alone");
    relay_plan_free(p);
}

/* A destination replicated on ranks 1 and 2, forwarding: rank 0's message
 * reaches one replica, which passes it on as it lands (no packing), so
 * the other lands one message time later. */
static void a_forwarded_message_leaves_when_its_origins_lands(void **state)
{
    relay_plan *p = nd_plan(3, line(S / 8, 1, 2, RELAY_REPLICATE), line(S / 8, 0, 1, RELAY_SHARD), RELAY_REPLICAS_FORWARD);
    double ranks[3], wire = 2 * link_lat + (double)S / link_bw, landed = copy(S) + wire;
    relay_prediction out = predict(p, star, RELAY_SCHED_AUTO, ranks);
    assert_int_equal(out.messages, 2);
    assert_int_equal(out.nslowest, 2);
    assert_true((out.slowest[0].from == 0) != (out.slowest[1].from == 0)); /* one from the origin, one passed on */
    assert_close(out.slowest[0].seconds, wire);
    assert_close(out.slowest[1].seconds, wire);
    double first = fmin(ranks[1], ranks[2]), second = fmax(ranks[1], ranks[2]);
    assert_close(ranks[0], landed);
    assert_close(first, landed + wire);            /* unpacked while its send passes it on, done when that lands */
    assert_close(second, landed + wire + copy(S));
    assert_true(second - (landed + copy(S)) >= wire * (1 - 1e-9)); /* a message after the first replica unpacked */
    char *path = machine_file(star);                /* as a tuning: p2p, forwarding as the plan does, one the plan can carry */
    relay_tuning t;
    relay_status st = relay_predict_tuning(p, path, &t);
    unlink(path);
    if (st) fail_msg("relay_predict_tuning: %s", relay_last_error());
    assert_int_equal(t.ntimed, 1);
    assert_int_equal(t.choices[0].schedule, RELAY_SCHED_P2P);
    assert_int_equal(t.choices[0].forward, 1);
    assert_close(t.choices[0].seconds, out.seconds);
    assert_int_equal(relay_plan_set_tuning(p, &t), RELAY_OK);
    relay_plan_free(p);
}

/* A 3-D transfer is packed and unpacked in the executor walk's rectangles
 * (executor/messages/box_walk.c): one per pair of runs of the two innermost
 * dimensions of its walk order, at every index of the outer one, each at
 * piece_seconds; not one per combination of runs (here 5).  Rank 0 holds
 * B, L x M x N doubles in C order; A deals blocks of 100 along N to ranks
 * 0 and 1, so rank 1 receives S bytes in one run of L, one of M and
 * N / 200 = 5 of N.  The walk goes B's fastest (N) innermost, A's fastest
 * next, the other outermost: L, M, N with A in C order (L * 5 rectangles),
 * M, L, N with A in Fortran order (M * 5). */
static void a_3d_transfer_moves_in_the_walks_rectangles(void **state)
{
    enum { L = 5, M = 50, N = 1000, RUNS_OF_N = N / 200 };
    static const int64_t shape[3] = {L, M, N};
    static const struct {
        relay_order a_order;
        int64_t outer;         /* the outer dimension's length */
    } cases[] = {{RELAY_ROW_MAJOR, L}, {RELAY_COL_MAJOR, M}};
    char costly[sizeof star + 64];
    snprintf(costly, sizeof costly, "%smessage_seconds = 3e-5\npiece_seconds = 2e-6\n", star);
    double wire = 2 * link_lat + (double)S / link_bw;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        relay_placement whole = {RELAY_SHARD, 0, 0, NULL}, blocks_of_n = {RELAY_SHARD, 2, 100, NULL};
        relay_plan *p = nd_plan(2, on_ranks(3, shape, 0, 2, blocks_of_n, cases[c].a_order),
                                on_ranks(3, shape, 0, 1, whole, RELAY_ROW_MAJOR), RELAY_REPLICAS_AUTO);
        double ranks[2];
        relay_prediction out = predict(p, costly, RELAY_SCHED_P2P, ranks);
        assert_int_equal(out.messages, 1);
        double move = copy(S) + (double)(cases[c].outer * RUNS_OF_N) * 2e-6; /* packing or unpacking */
        assert_close(ranks[1], 2 * move + 3e-5 + wire);
        relay_plan_free(p);
    }
}

/* BMMC and HSUMMA plans replay one way (AUTO). */
static void bmmc_and_hsumma_take_auto_alone(void **state)
{
    relay_schedule s[RELAY_PREDICT_MAX_SCHEDULES];
    int n;
    relay_plan *p = summa_1xq(2, RELAY_BCAST_BINOMIAL);
    assert_int_equal(relay_predict_schedules(p, s, &n), RELAY_OK);
    assert_int_equal(n, 1);
    assert_int_equal(s[0], RELAY_SCHED_AUTO);
    assert_refused(p, star, RELAY_SCHED_P2P, RELAY_ERR_ARG, "replays one way");
    relay_prediction out = {.seconds = 42};
    assert_int_equal(relay_plan_predict_hsumma(p, "x", -1, &out, NULL), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "outer_steps -1"));
    relay_plan_free(p);
    p = empty_plan(1, RELAY_SCHED_P2P, 1);
    assert_int_equal(relay_plan_predict_hsumma(p, "x", 1, &out, NULL), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "not an HSUMMA plan"));
    assert_true(out.seconds == 42);
    relay_plan_free(p);
}

/* The transform replay's closed forms and choices, which both engines
 * meet. */
#define TRANSFORM_REPLAY_TESTS                                                 \
    cmocka_unit_test(one_message_is_latency_plus_size_over_bandwidth),        \
        cmocka_unit_test(k_messages_through_one_link_take_k_times_as_long),   \
        cmocka_unit_test(a_ring_of_rounds_pays_the_latency_each_round),       \
        cmocka_unit_test(packing_is_bytes_over_memory_bandwidth_plus_pieces), \
        cmocka_unit_test(alltoallv_waits_for_every_rank_neighbor_does_not),   \
        cmocka_unit_test(ranks_share_their_nodes_cores),                      \
        cmocka_unit_test(transposes_move_at_the_transpose_bandwidth),         \
        cmocka_unit_test(predictions_as_a_tuning),                            \
        cmocka_unit_test(fat_tree_routes_share_the_links_they_cross)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TRANSFORM_REPLAY_TESTS,
        cmocka_unit_test(schedules_follow_the_plan),
        cmocka_unit_test(bad_requests_change_nothing),
        cmocka_unit_test(a_1x2_summa_broadcast_is_latency_plus_size_over_bandwidth),
        cmocka_unit_test(a_1x2_van_de_geijn_broadcast_pays_two_latencies),
        cmocka_unit_test(a_binomial_broadcast_over_four_takes_two_rounds),
        cmocka_unit_test(a_bmmc_round_is_one_message),
        cmocka_unit_test(bmmc_and_hsumma_take_auto_alone),
        cmocka_unit_test(an_nd_message_is_packing_latency_size_over_bandwidth_unpacking),
        cmocka_unit_test(a_forwarded_message_leaves_when_its_origins_lands),
        cmocka_unit_test(a_3d_transfer_moves_in_the_walks_rectangles),
    };
    /* The same again on relay's own engine, which simulates transform plans
     * of over 20,000 messages unasked; and the two engines side by side. */
    const struct CMUnitTest fluid[] = {
        TRANSFORM_REPLAY_TESTS,
        cmocka_unit_test(the_engines_agree_on_a_fat_tree),
        cmocka_unit_test(the_fluid_engine_is_asked_for_plainly),
    };
    int failed = cmocka_run_group_tests_name("SimGrid", tests, NULL, NULL);
    return failed + cmocka_run_group_tests_name("relay's fluid engine", fluid, on_fluid_engine, off_fluid_engine);
}
