"""Memory kinds (relay_exec_create_with): executors over host memory bind and
replay as before with every option spelled out; CUDA memory where relay has
no CUDA backend or no GPU (every CI machine) is refused with UnsupportedError
on every rank; other plan kinds than 2-D transforms refuse it everywhere;
ranks that ask for different kinds fail together; device arrays given to a
host executor are refused naming the argument, and the job goes on.

Where relay has its CUDA backend and a GPU, and CuPy or PyTorch with CUDA is
importable on every rank, replays over their device arrays are checked
against numpy (the tests skip on every rank otherwise)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import relay
from relay_mpi_support import check_2d, collective_skip, global_array, local_2d, plan_t, run_transform, scalars, tol


class FakeDeviceArray:
    """What a CuPy array shows of itself (__cuda_array_interface__, no buffer
    protocol), at an address nothing may read: every use is refused."""

    def __init__(self, n, typestr="<f8"):
        self.__cuda_array_interface__ = dict(shape=(n,), typestr=typestr, data=(1 << 20, False), strides=None,
                                             version=3)


def pair(comm, op="T", seed=0):
    rng = np.random.default_rng(7000 + seed)
    m, n = int(rng.integers(6, 25)), int(rng.integers(6, 25))
    size = comm.size
    dst = relay.block_cyclic(m, n, 3, 2, 1, size)
    src = relay.block_cyclic(*((m, n) if op == "N" else (n, m)), 2, 4, size, 1)
    return dst, src


def all_ranks(comm, cond) -> bool:
    return all(comm.allgather(bool(cond)))


# ---- host memory ----------------------------------------------------------------------------


def test_host_options(comm, chk):
    chk.check(relay.memory_supported("host") is True, "host memory is not supported")
    dst, src = pair(comm, "T")
    plan = plan_t(comm, dst, src, op="T")
    with relay.Executor(plan, comm) as ex:
        opt = ex.options
        chk.check(isinstance(opt, relay.ExecOptions) and opt == ("host", 0, "auto"), f"default options {opt}")
        chk.check("cuda" not in repr(ex), f"repr {ex!r}")
    for kw in [dict(memory="host"), dict(memory="host", stream=None, transport="auto")]:
        ex = relay.Executor(plan, comm, **kw)
        chk.check(ex.options.memory == "host", f"{kw}: options {ex.options}")
        run_transform(comm, chk, plan, [dst], [src], ["T"], np.float64, alpha=2.0, beta=-1.0, seed=3,
                      what=f"host replay with {kw}", executor=ex)
        ex.close()
    # other plan kinds bind host memory too
    nd = relay.NDLayout((4, 6), comm.size, [relay.Shard(0)])
    with relay.Executor(relay.plan_nd(nd, nd), comm, memory="host") as ex:
        chk.check(ex.options.memory == "host", f"N-D executor options {ex.options}")
    chk.agree()


def test_option_words_refused(comm, chk):
    """Refused before binding, on every rank alike (nothing collective starts)."""
    dst, src = pair(comm, "N")
    plan = plan_t(comm, dst, src)
    chk.raises(relay.ArgumentError, relay.Executor, plan, comm, memory="gpu", words=["memory", "host, cuda", "gpu"],
               what="memory='gpu'")
    chk.raises(relay.ArgumentError, relay.Executor, plan, comm, memory="cuda", transport="fast",
               words=["transport", "auto, staged, direct"], what="transport='fast'")
    chk.raises(TypeError, relay.Executor, plan, comm, memory="cuda", stream=1.5, words=["stream"], what="float stream")
    chk.raises(relay.ArgumentError, relay.Executor, plan, comm, memory="cuda", stream=-1, words=["stream"],
               what="negative stream")
    chk.raises(TypeError, relay.Executor, plan, comm, "cuda", what="memory given by position")
    chk.agree()
    run_transform(comm, chk, plan, [dst], [src], ["N"], np.float64, what="after refused options")


def test_device_arrays_refused_by_host_executor(comm, chk):
    dst, src = pair(comm, "T", 1)
    plan = plan_t(comm, dst, src, op="T")
    rank = comm.rank
    nd, ns = plan.dst_elems(rank), plan.src_elems(rank)
    a, b = np.zeros(nd), np.ones(ns)
    words = ["device array", "FakeDeviceArray", "__cuda_array_interface__", "host memory", 'memory="cuda"']
    with relay.Executor(plan, comm) as ex:
        # every rank refuses (each still takes part in the exchange, over relay's own buffers)
        if nd:
            chk.raises(relay.BufferMismatch, ex.run, FakeDeviceArray(nd), b, words=["dst"] + words,
                       what="device dst on a host executor")
        else:
            ex.run(None, b)
        if ns:
            chk.raises(relay.BufferMismatch, ex.start, a, FakeDeviceArray(ns), words=["src"] + words,
                       what="device src on a host executor (start)")
            chk.check(not ex.in_flight, "a refused start left a replay in flight")
        else:
            ex.run(a, None)
        # rank 0 alone refuses; the others complete
        if rank == 0 and nd:
            chk.raises(relay.BufferMismatch, ex.run, FakeDeviceArray(nd), b, what="rank 0's device dst")
        else:
            ex.run(a, b)
    chk.agree()
    run_transform(comm, chk, plan, [dst], [src], ["T"], np.float64, what="after device arrays were refused")


# ---- CUDA memory where relay cannot bind it ---------------------------------------------------


def test_cuda_unsupported_everywhere(comm, chk):
    collective_skip(comm, all_ranks(comm, relay.memory_supported("cuda")),
                    "every rank can bind CUDA memory (the GPU tests below replay over it)")
    dst, src = pair(comm, "T", 2)
    plan = plan_t(comm, dst, src, op="T", dtype=np.complex128)
    for kw in [dict(), dict(transport="staged"), dict(transport="direct", stream=0x1234)]:
        e = chk.raises(relay.UnsupportedError, relay.Executor, plan, comm, memory="cuda", words=["CUDA"],
                       what=f"memory='cuda' {kw} without a CUDA backend or GPU")
        if e is not None:
            chk.check(isinstance(e, NotImplementedError) and e.status == "RELAY_ERR_UNSUPPORTED",
                      f"{type(e).__name__} {e.status}")
    chk.agree()
    run_transform(comm, chk, plan, [dst], [src], ["T"], np.complex128, what="after CUDA memory was refused")


def test_cuda_refused_for_other_plan_kinds(comm, chk):
    """N-D plans and plans with a memory cap replay over host memory only,
    whatever the machine."""
    size = comm.size
    a = relay.NDLayout((4, 6, 2), size, [relay.Shard(1)])
    b = relay.NDLayout((6, 4, 2), size, [relay.Shard(0)])
    chk.raises(relay.UnsupportedError, relay.Executor, relay.plan_nd(a, b, op="T", perm=(1, 0, 2), nranks=size), comm,
               memory="cuda", what="an N-D plan over CUDA memory")
    dst, src = pair(comm, "T", 3)
    capped = plan_t(comm, dst, src, op="T", max_buffer_bytes=256)
    chk.raises(relay.UnsupportedError, relay.Executor, capped, comm, memory="cuda", what="a capped plan over CUDA")
    chk.agree()


def test_mixed_memory_kinds_fail_together(comm, chk):
    collective_skip(comm, comm.size < 2, "ranks that disagree need two ranks")
    dst, src = pair(comm, "N", 4)
    plan = plan_t(comm, dst, src)
    memory = "cuda" if comm.rank == 0 else "host"
    chk.raises(relay.MismatchError if comm.rank else relay.Error, relay.Executor, plan, comm, memory=memory,
               what=f"rank {comm.rank} binds {memory} memory, another rank differs")
    chk.agree()
    run_transform(comm, chk, plan, [dst], [src], ["N"], np.float64, what="after mixed memory kinds")


# ---- replays over device arrays (a GPU, relay's CUDA backend, CuPy or PyTorch) -----------------


class Cupy:
    name = "cupy"

    def __init__(self, rank):
        import cupy
        self.cp = cupy
        cupy.cuda.Device(rank % cupy.cuda.runtime.getDeviceCount()).use()

    def to_device(self, a):
        d = self.cp.asarray(a)
        self.cp.cuda.Device().synchronize()
        return d

    def to_host(self, d):
        return self.cp.asnumpy(d)

    def stream(self):
        return self.cp.cuda.Stream(non_blocking=True)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def handle(self, s):
        return s.ptr


class Torch:
    name = "torch"

    def __init__(self, rank):
        import torch
        self.torch = torch
        torch.cuda.set_device(rank % torch.cuda.device_count())

    def to_device(self, a):
        d = self.torch.from_numpy(a).to("cuda")
        self.torch.cuda.synchronize()
        return d

    def to_host(self, d):
        return d.cpu().numpy()

    def stream(self):
        return self.torch.cuda.Stream()

    def sync(self):
        self.torch.cuda.synchronize()

    def handle(self, s):
        return s.cuda_stream


def _usable(name: str) -> bool:
    try:
        mod = importlib.import_module(name)
        if name == "cupy":
            return mod.cuda.runtime.getDeviceCount() > 0
        return bool(mod.cuda.is_available())
    except Exception:  # noqa: BLE001 - not importable, or no device: the tests skip
        return False


@pytest.fixture(params=["cupy", "torch"])
def gpu(request, comm):
    collective_skip(comm, not all_ranks(comm, relay.memory_supported("cuda")),
                    "relay cannot bind CUDA memory here (no CUDA backend or no GPU)")
    collective_skip(comm, not all_ranks(comm, _usable(request.param)), f"{request.param} with CUDA is not importable")
    return (Cupy if request.param == "cupy" else Torch)(comm.rank)


@pytest.mark.parametrize("dtype,op", [(np.float64, "T"), (np.float32, "N"), (np.complex64, "C"),
                                      (np.complex128, "T")])
def test_gpu_replay(comm, chk, gpu, dtype, op):
    dst, src = pair(comm, op, 5)
    plan = plan_t(comm, dst, src, op=op, dtype=dtype)
    rank = comm.rank
    A, B = global_array(dst.shape, dtype, 11), global_array(src.shape, dtype, 12)
    a, b = local_2d(dst, rank, A, dtype), local_2d(src, rank, B, dtype)
    alpha, beta = scalars(dtype, 0)
    op_b = B if op == "N" else B.T.conj() if op == "C" else B.T
    a_dev, b_dev = gpu.to_device(a), gpu.to_device(b)
    stream = gpu.stream()
    with relay.Executor(plan, comm, memory="cuda", stream=stream) as ex:
        opt = ex.options
        chk.check(opt.memory == "cuda" and opt.stream == gpu.handle(stream) and opt.transport in ("staged", "direct"),
                  f"options {opt}")
        chk.check("cuda" in repr(ex), f"repr {ex!r}")
        ex.run(a_dev, b_dev, alpha, beta)
        stream.synchronize()
        with chk.local("replay"):
            check_2d(chk, dst, rank, gpu.to_host(a_dev), alpha * op_b + beta * A, f"{gpu.name} replay", **tol(dtype))
        # split phase, A := op(B) over the same arrays (beta 0: A's old contents are not read)
        ex.start(a_dev, b_dev)
        chk.check(ex.in_flight, "not in flight after start")
        ex.wait()
        stream.synchronize()
        with chk.local("split-phase replay"):
            check_2d(chk, dst, rank, gpu.to_host(a_dev), op_b, f"{gpu.name} split-phase replay", **tol(dtype))
    chk.agree()


@pytest.mark.parametrize("transport", ["staged", "auto"])
def test_gpu_default_stream_and_refusals(comm, chk, gpu, transport):
    dtype = np.float64
    dst, src = pair(comm, "T", 6)
    plan = plan_t(comm, dst, src, op="T", dtype=dtype)
    rank = comm.rank
    A, B = global_array(dst.shape, dtype, 21), global_array(src.shape, dtype, 22)
    a, b = local_2d(dst, rank, A, dtype), local_2d(src, rank, B, dtype)
    a_dev, b_dev = gpu.to_device(a), gpu.to_device(b)
    with relay.Executor(plan, comm, memory="cuda", transport=transport) as ex:   # the legacy default stream
        opt = ex.options
        settled = ("staged",) if transport == "staged" else ("staged", "direct")
        chk.check(opt.memory == "cuda" and opt.stream == 0 and opt.transport in settled, f"options {opt}")
        n = plan.dst_elems(rank)
        # host arrays on a CUDA executor: refused on every rank, naming the argument
        if n:
            chk.raises(relay.BufferMismatch, ex.run, a, b_dev, words=["dst is host memory", "numpy.ndarray"],
                       what="numpy dst on a CUDA executor")
        else:
            ex.run(a_dev, b_dev)
        if plan.src_elems(rank):
            chk.raises(relay.BufferMismatch, ex.run, a_dev, b, words=["src is host memory"],
                       what="numpy src on a CUDA executor")
        else:
            ex.run(a_dev, b_dev)
        ex.run(a_dev, b_dev)
        gpu.sync()
        with chk.local("default-stream replay"):
            check_2d(chk, dst, rank, gpu.to_host(a_dev), B.T, f"{gpu.name} default-stream replay", **tol(dtype))
    chk.agree()
