/* ranks.c — the largest of a value over relay-run's ranks (run.h): a
 * step's time is its slowest rank's, for the replays (main.c) and the
 * measurements of --calibrate (calibrate.c) alike. */
#include "run.h"

double max_over_ranks(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}
