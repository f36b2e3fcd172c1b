/* device_kind.c — the memory kinds this build of relay holds (device_kind.h):
 * each kind's table is defined in its own folder, built only where its
 * toolkit was found (CMake defines RELAY_HAVE_CUDA for cuda/). */
#include "device_kind.h"

#ifdef RELAY_HAVE_CUDA
extern const rl_device_kind rl_cuda_kind;
#endif

const rl_device_kind *rl_device_kind_of(relay_memory m)
{
#ifdef RELAY_HAVE_CUDA
    if (m == RELAY_MEMORY_CUDA) return &rl_cuda_kind;
#endif
    (void)m;
    return NULL;
}
