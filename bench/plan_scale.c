/* plan_scale.c — planning cost at scale: time and peak
 * memory of planning a block-cyclic 32x32 -> 128x128 transform of an
 * n x n double matrix on P ranks (near-square grids), and of encoding and
 * decoding the resulting plan.
 *
 *   plan_scale N P [P ...]      e.g. plan_scale 100000 1024 4096 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>

#include "measure.h"
#include "relay/relay.h"

static int near_square_rows(int p)
{
    int r = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0) r = d;
    return r;
}

static int bench_one(int64_t n, int P)
{
    int pr = near_square_rows(P);
    relay_layout *la, *lb;
    relay_plan *plan, *back;
    relay_plan_stats st;
    void *buf;
    size_t len;
    if (relay_layout_block_cyclic(&lb, n, n, 32, 32, pr, P / pr, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
        relay_layout_block_cyclic(&la, n, n, 128, 128, P / pr, pr, RELAY_COL_MAJOR, 0, 0, 0, RELAY_COL_MAJOR)) {
        fprintf(stderr, "plan_scale: %s\n", relay_last_error());
        return 1;
    }
    double t0 = now();
    if (relay_plan_transform(&plan, P, la, lb, RELAY_OP_N, RELAY_DOUBLE, NULL)) {
        fprintf(stderr, "plan_scale: %s\n", relay_last_error());
        return 1;
    }
    double t1 = now();
    relay_plan_encode(plan, &buf, &len);
    double t2 = now();
    int bad = relay_plan_decode(&back, buf, len, -1) != RELAY_OK;
    double t3 = now();
    relay_plan_get_stats(plan, &st);
    printf("| %lld | %d | %dx%d -> %dx%d | %lld | %.2f | %.2f | %.2f | %.0f | %.0f |\n", (long long)n, P, pr, P / pr,
           P / pr, pr, (long long)st.pieces, t1 - t0, t2 - t1, t3 - t2, (double)len / 1048576.0, peak_rss_mib());
    if (!bad) relay_plan_free(back);
    free(buf);
    relay_plan_free(plan);
    relay_layout_free(la);
    relay_layout_free(lb);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: plan_scale N P [P ...]\n");
        return 2;
    }
    printf("| n | ranks | grids | pieces | plan s | encode s | decode s | file MiB | peak RSS MiB |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
    int bad = 0;
    for (int i = 2; i < argc; i++) bad |= bench_one(atoll(argv[1]), atoi(argv[i]));
    return bad;
}
