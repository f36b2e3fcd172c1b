/* engine.c — the parts every simulation shares (engine.h): SimGrid's
 * engine and its configuration, the actors of the ranks, work on a node's
 * cores, messages between ordered pairs of ranks, and the prediction's
 * summary. */
#include <stdio.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "engine.h"
#include "platform.h"

/* CM02: SimGrid's analytic max-min sharing without the correction factors
 * of its default LV08 model, TCP's window bound or cross-traffic, so that
 * one message of S bytes over links of latency l and bandwidth b takes
 * l_total + S / b exactly (tests/test_predict.c holds it to that).  The
 * sharing is solved to 1e-3 bytes/s rather than SimGrid's 1e-5: with links
 * of 1e10 bytes/s and thousands of flows, rounding left 1e-5 of usage on a
 * saturated link and SimGrid aborted ("Cannot saturate more a constraint
 * that has no active element").  The sharing is re-solved whole at each
 * event (optim Full) rather than for the flows an event touches (Lazy,
 * SimGrid's default): every flow of a fat tree touches every other through
 * the upper switches, and the bookkeeping of the partial solve costs more
 * than it saves (the same predictions either way).  On a torus a flow
 * shares links with its neighbours' alone, and the partial solve (Lazy)
 * pays: a SUMMA step with Van de Geijn broadcasts runs faster, one with
 * binomial broadcasts as fast, the same predictions to the last digit
 * (docs/benchmarks.md).  Small stacks (an actor
 * here ran every test and a 1,024-rank plan alike in 8 KiB; 32 KiB leaves
 * 4x) and no guard pages: 65,536 actors would otherwise exhaust the
 * process's memory maps (two per guard page, and Linux allows 65,530) and
 * with SimGrid's 8 MiB default stacks half a terabyte. */
int start_engine(const machine *m, int nranks)
{
    char *optim = m->topology == MACHINE_TORUS ? "--cfg=network/optim:Lazy" : "--cfg=network/optim:Full";
    char *argv[] = {"relay_plan_predict",
                    "--cfg=network/model:CM02",
                    "--cfg=network/TCP-gamma:0",
                    "--cfg=network/crosstraffic:0",
                    "--cfg=maxmin/precision:1e-3",
                    optim,
                    "--cfg=contexts/stack-size:32",
                    "--cfg=contexts/guard-size:0",
                    "--log=root.thres:critical",
                    NULL};
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    simgrid_init(&argc, argv);
    return platform_load(m, platform_nodes(m, nranks), platform_cores(m, nranks));
}

int start_actors(const machine *m, int nranks, void (*code)(int, char **), void *actors, size_t actor_size)
{
    for (int r = 0; r < nranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "node-%d", m->topology == MACHINE_NODE ? 0 : r / m->ranks_per_node);
        sg_host_t host = sg_host_by_name(name);
        if (!host) return -1;
        snprintf(name, sizeof name, "rank-%d", r);
        sg_actor_t actor = sg_actor_init(name, host);
        sg_actor_set_data(actor, (char *)actors + (size_t)r * actor_size);
        sg_actor_start(actor, code, 0, NULL);
    }
    return 0;
}

double copy_seconds(const machine *m, int64_t bytes, int64_t pieces, int64_t transposed)
{
    double transpose_bandwidth = m->transpose_bandwidth > 0 ? m->transpose_bandwidth : m->memory_bandwidth;
    return (double)(bytes - transposed) / m->memory_bandwidth + (double)transposed / transpose_bandwidth +
           (double)pieces * m->piece_seconds;
}

void spend(double seconds)
{
    if (seconds > 0) sg_actor_execute(seconds * CORE_SPEED);
}

void record_predicted(relay_prediction *out, int from, int to, int64_t bytes, double seconds)
{
    out->messages++;
    int k = out->nslowest < RELAY_PREDICT_SLOWEST ? out->nslowest++ : RELAY_PREDICT_SLOWEST;
    for (; k > 0 && out->slowest[k - 1].seconds < seconds; k--)
        if (k < RELAY_PREDICT_SLOWEST) out->slowest[k] = out->slowest[k - 1];
    if (k < RELAY_PREDICT_SLOWEST) out->slowest[k] = (relay_predicted_message){from, to, bytes, seconds};
}

/* ---- messages between ordered pairs ------------------------------------- */

static sg_mailbox_t pair_mailbox(int from, int to, int tag)
{
    char name[48];
    if (tag) snprintf(name, sizeof name, "%d>%d#%d", from, to, tag);
    else snprintf(name, sizeof name, "%d>%d", from, to);
    return sg_mailbox_by_name(name);
}

sg_comm_t pair_send_async(const machine *m, int from, int to, int64_t bytes) { return tagged_send_async(m, from, to, 0, bytes); }

sg_comm_t tagged_send_async(const machine *m, int from, int to, int tag, int64_t bytes)
{
    spend(m->message_seconds);
    pair_message *msg = malloc(sizeof *msg);
    if (!msg) {
        fprintf(stderr, "relay_plan_predict: out of memory simulating rank %d\n", from);
        abort();
    }
    *msg = (pair_message){from, to, bytes, simgrid_get_clock()};
    return sg_mailbox_put_async(pair_mailbox(from, to, tag), msg, (long)bytes);
}

sg_comm_t pair_receive_async(int from, int to, pair_message **landed) { return tagged_receive_async(from, to, 0, landed); }

sg_comm_t tagged_receive_async(int from, int to, int tag, pair_message **landed)
{
    return sg_mailbox_get_async(pair_mailbox(from, to, tag), (void **)landed);
}

void pair_landed(relay_prediction *out, pair_message *landed)
{
    record_predicted(out, landed->from, landed->to, landed->bytes, simgrid_get_clock() - landed->posted);
    free(landed);
}

void pair_send(const machine *m, int from, int to, int64_t bytes) { sg_comm_wait(pair_send_async(m, from, to, bytes)); }

void pair_receive(relay_prediction *out, int from, int to)
{
    pair_message *landed;
    sg_comm_wait(pair_receive_async(from, to, &landed));
    pair_landed(out, landed);
}

void summarise(int nranks, const double *rank_seconds, relay_prediction *out)
{
    out->seconds = -1;
    for (int r = 0; r < nranks; r++)
        if (rank_seconds[r] > out->seconds) {
            out->seconds = rank_seconds[r];
            out->slowest_rank = r;
        }
}

int run_actors(const machine *m, int nranks, void (*code)(int, char **), void *actors, size_t actor_size,
               const double *rank_seconds, relay_prediction *out)
{
    if (start_actors(m, nranks, code, actors, actor_size)) return -1;
    simgrid_run();
    summarise(nranks, rank_seconds, out);
    return 0;
}
