/* device_kernels.h — the CUDA backend's one kernel, as the host calls it
 * (device_kernels.cu): every tile of a table of device walks
 * (device_walks.h) in one launch, A := alpha * op(B) + beta * A on the way
 * (plain copies when packing).  C linkage: the rest of the backend is C. */
#ifndef RELAY_DEVICE_KERNELS_H
#define RELAY_DEVICE_KERNELS_H

#include <stdint.h>

#include "device_walks.h"
#include "relay/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* alpha and beta as (real, imaginary) doubles, with what they let the
 * kernel skip; beta_zero: A is never read. */
typedef struct {
    double alpha[2], beta[2];
    int alpha_one, beta_zero;
} rl_dev_scalars;

typedef struct {
    const rl_dev_walk *walks;   /* device memory, nwalks of them */
    int64_t nwalks, ntiles;
    void *const *b;             /* device memory: the pairs' B, then */
    void *const *a;             /*   their A */
    void *packed;               /* the set's pack buffer (device memory) */
} rl_dev_launch;

/* Enqueues the moves of l on `stream` (a cudaStream_t); nothing where l
 * has no tiles.  Returns the launch's cudaError_t (0: enqueued). */
int rl_dev_move(const rl_dev_launch *l, relay_type type, const rl_dev_scalars *s, void *stream);

#ifdef __cplusplus
}
#endif
#endif
