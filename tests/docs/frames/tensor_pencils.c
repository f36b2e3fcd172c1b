/* ranks: 4 */
/* tensor_pencils.c — the frame of docs/tensor-fft.md's C example: an
 * nz x ny x nx complex array in x-pencils (z and y cut in halves over a
 * 2 x 2 mesh, x whole and fastest) moved to y-pencils (z and x cut, y
 * fastest), steps times, with no FFTs between.  The frame gives the example
 * P, q0, q1, nz, ny, nx, steps and this rank's buffers xbuf and ybuf, filled
 * by the pencils' index arithmetic, and checks every element of ybuf:
 * A(z, x, y) = B(z, y, x). */
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "relay/relay.h"

static double complex value(int64_t z, int64_t y, int64_t x) { return (double)(10000 * z + 100 * y + x) + I * (double)(z - y); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int P = 4, q0 = 2, q1 = 2, steps = 2;
    const int64_t nz = 4, ny = 6, nx = 8;
    const int64_t zs = nz / q0, ys = ny / q1, xs = nx / q1; /* even chunks */
    const int64_t z0 = rank / q1 * zs, y0 = rank % q1 * ys, x0 = rank % q1 * xs;
    double complex xbuf[4 / 2 * 6 / 2 * 8], ybuf[4 / 2 * 8 / 2 * 6];
    for (int64_t z = 0; z < zs; z++)
        for (int64_t y = 0; y < ys; y++)
            for (int64_t x = 0; x < nx; x++) xbuf[(z * ys + y) * nx + x] = value(z0 + z, y0 + y, x);
    {
        @EXAMPLE@
    }
    long wrong = 0, total;
    for (int64_t z = 0; z < zs; z++)
        for (int64_t x = 0; x < xs; x++)
            for (int64_t y = 0; y < ny; y++) wrong += ybuf[(z * xs + x) * ny + y] != value(z0 + z, y, x0 + x);
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("docs/tensor-fft.md's example: %ld wrong elements\n", total);
    MPI_Finalize();
    return total != 0;
}
