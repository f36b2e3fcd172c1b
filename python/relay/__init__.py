"""relay: move distributed arrays between MPI processes, plan once, replay many.

A plan is computed once, without MPI and on any machine, from two layouts:
which pieces each rank sends each other rank, an optional relabeling of
ranks, and per-rank schedules.  An :class:`Executor` replays it inside an
mpi4py job over fresh numpy arrays, at C speed, as often as needed::

    import numpy as np, relay
    from mpi4py import MPI

    src = relay.block_cyclic(1000, 1000, 64, 64, 2, 2)     # B: 64 x 64 blocks
    dst = relay.block_cyclic(1000, 1000, 100, 100, 2, 2)   # A: 100 x 100 blocks
    plan = relay.plan_transform(dst, src, op="T")           # A := B^T
    print(plan.info()["bytes_remote"])                      # inspect offline

    rank = MPI.COMM_WORLD.rank
    b = relay.empty_local(src, rank); relay.fill_local(src, rank, b, lambda i, j: i + 1000.0 * j)
    a = relay.empty_local(dst, rank)
    with relay.Executor(plan, MPI.COMM_WORLD) as ex:
        ex.run(a, b)

A :class:`DistArray` carries a rank's local array with its layout and moves
it: ``redistribute`` to another layout or placements, :func:`scatter` from
and ``gather`` / ``full`` to a global array, each planned once and replayed
from a cache.

Executors bound with ``memory="cuda"`` replay over device arrays (CuPy,
PyTorch CUDA tensors, Numba) on a CUDA stream, where relay was built with its
CUDA backend (:func:`relay.memory_supported`).

The C API this package wraps is documented in docs/api.md; docs/python.md
shows complete jobs.  Errors are :class:`relay.Error` subclasses carrying
relay's own message.
"""

# The extension module first, so that a build this Python cannot load says
# so before anything else; then what it needs to run.
from . import _core
from .comms import check_mpi4py, mpi_library

try:
    import numpy
except ImportError as e:
    raise ModuleNotFoundError(f"relay needs numpy, which this Python cannot import ({e}): install it with "
                              f"`pip install numpy` (Debian: python3-numpy)", name="numpy") from e
del numpy
check_mpi4py()

from .errors import (ArgumentError, BufferMismatch, Error, FormatError, MismatchError, MPIError, OutOfMemory,
                     PeerRefused, PlanIOError, ReplayTimeout, UnsupportedError, VersionError)
from .layouts import Layout, NDLayout, Partial, Placement, Replicate, Shard, block_cyclic, grid
from .plans import (Plan, Tuning, TuningChoice, compose, concat, decode, file_nranks, invert, load, plan_nd,
                    plan_transform)
from .algorithms import (BMMC, HsummaParams, Network, bmmc_info, hsumma_best_groups, hsumma_info, hsumma_layout,
                         hsumma_model, plan_bmmc, plan_hsumma)
from .executor import (ExecOptions, Executor, Memory, Timing, hsumma_autotune, hsumma_measure_network,
                       memory_supported, tune)
from .arrays import check_local, empty_local, expected_local, fill_local, local_view, zeros_local
from .distarray import DistArray, PlanCacheInfo, plan_cache_clear, plan_cache_info, scatter

__version__ = "0.1.0"

__all__ = [
    "Error", "ArgumentError", "BufferMismatch", "OutOfMemory", "PlanIOError", "FormatError", "VersionError",
    "MismatchError", "MPIError", "UnsupportedError", "ReplayTimeout", "PeerRefused",
    "Layout", "NDLayout", "Shard", "Replicate", "Partial", "Placement", "block_cyclic", "grid",
    "Plan", "Tuning", "TuningChoice", "plan_transform", "plan_nd", "compose", "invert", "concat", "load", "decode",
    "file_nranks",
    "BMMC", "plan_bmmc", "bmmc_info", "Network", "HsummaParams", "plan_hsumma", "hsumma_info", "hsumma_layout",
    "hsumma_model", "hsumma_best_groups",
    "Executor", "ExecOptions", "Memory", "Timing", "memory_supported", "tune", "hsumma_measure_network",
    "hsumma_autotune",
    "empty_local", "zeros_local", "local_view", "fill_local", "check_local", "expected_local",
    "DistArray", "scatter", "plan_cache_info", "plan_cache_clear", "PlanCacheInfo",
    "mpi_library",
]
