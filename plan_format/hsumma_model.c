/* hsumma_model.c — the cost model of section IV that chooses an HSUMMA
 * plan's groups: the time of one replay's communication for I x J groups,
 * and the grouping that minimises it.  The planner uses it with the
 * network the caller gives, the executor at bind with the network it
 * measures (so it lives here, beside the plan, not in the planner).
 *
 * The model generalises the paper's square case: on an s x t grid with
 * I x J groups, an outer step of width B broadcasts A's panel (m/s rows on
 * average) over the J group columns and B's panel (n/t columns) over the I
 * group rows; an inner step of width b broadcasts inside the group, over
 * t/J and s/I ranks.  With T(bytes, q) = L(q) alpha + bytes W(q) beta:
 *   latency   = alpha (k/B (L(J) + L(I)) + k/b (L(t/J) + L(s/I)))
 *   bandwidth = beta esz k (m/s (W(J) + W(t/J)) + n/t (W(I) + W(s/I)))
 * For s = t = sqrt(p), I = J = sqrt(G), m = n = k and b = B these are
 * formulas (4) and (5), and Tables I and II follow (docs/design.md). */
#include <math.h>

#include "error.h"
#include "hsumma_check.h"
#include "hsumma_dist.h"

/* L(q) and W(q) of the broadcast model; both 0 for one rank. */
static double bcast_latency(relay_bcast_model m, double q)
{
    return q <= 1 ? 0 : m == RELAY_BCAST_BINOMIAL ? log2(q) : log2(q) + q - 1;
}

static double bcast_bandwidth(relay_bcast_model m, double q)
{
    return q <= 1 ? 0 : m == RELAY_BCAST_BINOMIAL ? log2(q) : 2 * (q - 1) / q;
}

static void model_cost(const relay_hsumma_params *p, int I, int J, const relay_hsumma_network *net, double *lat, double *bw)
{
    double s = p->grid_rows, t = p->grid_cols, k = (double)p->k, esz = (double)relay_type_size(p->type);
    relay_bcast_model m = net->bcast;
    double outer = k / (double)p->outer_block, inner = k / (double)p->inner_block;
    *lat = net->alpha * (outer * (bcast_latency(m, J) + bcast_latency(m, I)) +
                         inner * (bcast_latency(m, t / J) + bcast_latency(m, s / I)));
    *bw = net->beta * esz * k * ((double)p->m / s * (bcast_bandwidth(m, J) + bcast_bandwidth(m, t / J)) +
                                 (double)p->n / t * (bcast_bandwidth(m, I) + bcast_bandwidth(m, s / I)));
}

static relay_status check_model_args(const relay_hsumma_params *p, const relay_hsumma_network *net, const char *what)
{
    if (!p || !net) return rl_fail(RELAY_ERR_ARG, "%s: NULL argument", what);
    relay_hsumma_params q = *p;
    q.group_rows = q.group_cols = 0;
    q.network = *net;
    return rl_hsumma_check_shape(&q, RELAY_ERR_ARG);
}

relay_status relay_hsumma_model(const relay_hsumma_params *p, int group_rows, int group_cols, const relay_hsumma_network *net,
                                double *seconds, double *latency, double *bandwidth)
{
    relay_status st = check_model_args(p, net, "relay_hsumma_model");
    if (st) return st;
    if (!seconds) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_model: seconds is NULL");
    if (group_rows < 1 || group_cols < 1 || p->grid_rows % group_rows || p->grid_cols % group_cols)
        return rl_fail(RELAY_ERR_ARG, "relay_hsumma_model: %d x %d groups do not tile the %d x %d grid", group_rows, group_cols,
                       p->grid_rows, p->grid_cols);
    double lat, bw;
    model_cost(p, group_rows, group_cols, net, &lat, &bw);
    *seconds = lat + bw;
    if (latency) *latency = lat;
    if (bandwidth) *bandwidth = bw;
    return RELAY_OK;
}

relay_status relay_hsumma_best_groups(const relay_hsumma_params *p, const relay_hsumma_network *net, int *group_rows,
                                      int *group_cols)
{
    relay_status st = check_model_args(p, net, "relay_hsumma_best_groups");
    if (st) return st;
    if (!group_rows || !group_cols) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_best_groups: NULL argument");
    double best = INFINITY;
    int bi = 1, bj = 1;
    for (int I = 0, J = 0; rl_hsumma_next_grouping(p, &I, &J);) {
        double lat, bw;
        model_cost(p, I, J, net, &lat, &bw);
        /* Within rounding of the best, fewer groups win (SUMMA first). */
        int tie = isfinite(best) && fabs(lat + bw - best) <= 1e-12 * best;
        if (tie ? (int64_t)I * J < (int64_t)bi * bj : lat + bw < best) {
            best = tie ? best : lat + bw;
            bi = I;
            bj = J;
        }
    }
    *group_rows = bi;
    *group_cols = bj;
    return RELAY_OK;
}
