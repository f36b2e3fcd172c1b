/* network.c — measuring the network for HSUMMA's model (the HSUMMA
 * paper, section IV): alpha (latency) and beta (seconds per byte) by ping-pong
 * between ranks 0 and 1, fitted through two message sizes (Hockney).
 * Used by relay_hsumma_measure_network callers and by HSUMMA's bind when a
 * plan leaves the groups to bind time (hsumma_exec.c). */
#include <math.h>

#include "agree.h"
#include "error.h"
#include "mpi_error.h"
#include "relay/exec.h"

enum {
    SMALL_BYTES = 8,
    LARGE_BYTES = 1 << 20,
    SMALL_REPS = 100,
    LARGE_REPS = 10,
    WARMUP_REPS = 3,
    TAG_PINGPONG = 1
};

/* Half the fastest round trip of `bytes` between ranks 0 and 1 (others: 0).
 * The minimum, not the mean: an oversubscribed rank's descheduling is not
 * the network. */
static int one_way_seconds(MPI_Comm comm, int rank, char *buf, int bytes, int reps, double *out)
{
    double best = INFINITY;
    int rc = MPI_SUCCESS;
    for (int r = -WARMUP_REPS; r < reps && rc == MPI_SUCCESS && rank < 2; r++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            rc = MPI_Send(buf, bytes, MPI_BYTE, 1, TAG_PINGPONG, comm);
            if (rc == MPI_SUCCESS) rc = MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG_PINGPONG, comm, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG_PINGPONG, comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) rc = MPI_Send(buf, bytes, MPI_BYTE, 0, TAG_PINGPONG, comm);
        }
        double t = (MPI_Wtime() - t0) / 2;
        if (r >= 0 && t < best) best = t;
    }
    *out = rank < 2 ? best : 0;
    return rc;
}

static relay_status measure(MPI_Comm comm, relay_hsumma_network *net)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *buf = calloc(1, LARGE_BYTES);
    relay_status st = rl_agree(comm, buf ? RELAY_OK : RL_NOMEM(), "the ping-pong buffer");
    double t[2] = {0, 0};
    int rc = MPI_SUCCESS;
    if (!st) rc = one_way_seconds(comm, rank, buf, SMALL_BYTES, SMALL_REPS, &t[0]);
    if (!st && rc == MPI_SUCCESS) rc = one_way_seconds(comm, rank, buf, LARGE_BYTES, LARGE_REPS, &t[1]);
    free(buf);
    if (st) return st;
    /* Ranks 0 and 1 may fail alone; the others wait in the broadcast below. */
    st = rl_agree(comm, rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "the ping-pong of relay_hsumma_measure_network"),
                  "the ping-pong");
    if (st) return st;
    /* Hockney: t(m) = alpha + m beta through the two sizes. */
    double v[2] = {t[0], (t[1] - t[0]) / (LARGE_BYTES - SMALL_BYTES)};
    if (v[1] <= 0) v[1] = 1e-15;
    rc = MPI_Bcast(v, 2, MPI_DOUBLE, 0, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Bcast in relay_hsumma_measure_network");
    net->alpha = v[0];
    net->beta = v[1];
    return RELAY_OK;
}

relay_status relay_hsumma_measure_network(MPI_Comm comm, relay_hsumma_network *net)
{
    if (!net || comm == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_measure_network: NULL argument");
    int size;
    MPI_Comm_size(comm, &size);
    *net = (relay_hsumma_network){0, 0, RELAY_BCAST_VAN_DE_GEIJN};
    if (size < 2) return RELAY_OK;
    MPI_Comm own;
    int rc = MPI_Comm_dup(comm, &own);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Comm_dup in relay_hsumma_measure_network");
    MPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
    relay_hsumma_network measured = *net;
    relay_status st = measure(own, &measured);
    MPI_Comm_free(&own);
    if (!st) *net = measured;
    return st;
}
