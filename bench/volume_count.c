/* volume_count.c — an independent count of what each rank sends, receives
 * and keeps in a block-cyclic move, to check a plan's volumes (relay-dump
 * --json per_rank) at sizes no test can afford (10^6 x 10^6 on
 * 65,536 ranks).
 *
 * Square n x n doubles, source blocks bs x bs on a P x Q grid numbered
 * row-major, target blocks bt x bt on a P x Q grid numbered column-major
 * (relay-plan --from bc:NxN:BSxBS:PxQ --to bc:NxN:BTxBT:PxQ:grid=col).
 * It shares no code with relay: each dimension is walked breakpoint by
 * breakpoint (the multiples of bs and bt), counting the indices each
 * (source process, target process) shares; a rank pair's volume is the
 * product of its row and column counts.  Prints "rank send_bytes
 * recv_bytes local_bytes send_msgs recv_msgs" per rank.
 *   volume_count N BS BT P Q */
#include <stdio.h>
#include <stdlib.h>

/* shared[p * Q + q]: indices of [0, n) on source process p (block bs, P
 * processes) and target process q (block bt, Q processes). */
static long long *overlap(long long n, long long bs, int P, long long bt, int Q)
{
    long long *shared = calloc((size_t)P * (size_t)Q, sizeof *shared);
    for (long long i = 0; i < n;) {
        long long next_s = (i / bs + 1) * bs, next_t = (i / bt + 1) * bt;
        long long end = next_s < next_t ? next_s : next_t;
        if (end > n) end = n;
        shared[(i / bs % P) * Q + i / bt % Q] += end - i;
        i = end;
    }
    return shared;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: volume_count N BS BT P Q\n");
        return 2;
    }
    long long n = atoll(argv[1]), bs = atoll(argv[2]), bt = atoll(argv[3]);
    int P = atoi(argv[4]), Q = atoi(argv[5]);
    /* rows: source process rows (P) against target process rows (P); columns likewise with Q */
    long long *rows = overlap(n, bs, P, bt, P), *cols = overlap(n, bs, Q, bt, Q);
    long long *row_out = calloc((size_t)P, sizeof *row_out), *col_out = calloc((size_t)Q, sizeof *col_out);
    long long *row_in = calloc((size_t)P, sizeof *row_in), *col_in = calloc((size_t)Q, sizeof *col_in);
    int *row_deg_out = calloc((size_t)P, sizeof(int)), *col_deg_out = calloc((size_t)Q, sizeof(int));
    int *row_deg_in = calloc((size_t)P, sizeof(int)), *col_deg_in = calloc((size_t)Q, sizeof(int));
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++) {
            row_out[a] += rows[a * P + b], row_in[b] += rows[a * P + b];
            row_deg_out[a] += rows[a * P + b] > 0, row_deg_in[b] += rows[a * P + b] > 0;
        }
    for (int a = 0; a < Q; a++)
        for (int b = 0; b < Q; b++) {
            col_out[a] += cols[a * Q + b], col_in[b] += cols[a * Q + b];
            col_deg_out[a] += cols[a * Q + b] > 0, col_deg_in[b] += cols[a * Q + b] > 0;
        }
    for (int r = 0; r < P * Q; r++) {
        int sr = r / Q, sc = r % Q;          /* source grid, row-major */
        int tr = r % P, tc = r / P;          /* target grid, column-major */
        long long kept = rows[sr * P + tr] * cols[sc * Q + tc];
        long long sent = row_out[sr] * col_out[sc] - kept, received = row_in[tr] * col_in[tc] - kept;
        int send_msgs = row_deg_out[sr] * col_deg_out[sc] - (kept > 0);
        int recv_msgs = row_deg_in[tr] * col_deg_in[tc] - (kept > 0);
        printf("%d %lld %lld %lld %d %d\n", r, 8 * sent, 8 * received, 8 * kept, send_msgs, recv_msgs);
    }
    return 0;
}
