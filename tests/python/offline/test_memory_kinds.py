"""Memory kinds without MPI or a GPU: relay.memory_supported, the stream
handles an executor accepts (CuPy's, PyTorch's, the CUDA stream protocol's,
integers), and the checks a replay makes on device arrays
(``__cuda_array_interface__``) and on host buffers, through
``relay._core.check_buffers``: the very checks of an executor's replay, on a
plan's rank, with no executor bound.  The fake device arrays here point at
no memory: nothing reads them.  Replays over real device arrays are
tests/python/mpi/test_mpi_memory.py's, on a machine with a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay import _core
from relay.executor import _stream_handle

TYPESTR = {np.float32: "<f4", np.float64: "<f8", np.complex64: "<c8", np.complex128: "<c16"}


class FakeDeviceArray:
    """Presents __cuda_array_interface__ (version 3) alone, as CuPy does."""

    def __init__(self, shape, typestr="<f8", ptr=1 << 20, readonly=False, strides=None, **extra):
        self.__cuda_array_interface__ = dict(shape=tuple(shape), typestr=typestr, data=(ptr, readonly),
                                             strides=strides, version=3, stream=1, **extra)


class RaisingDeviceArray:
    """A PyTorch CUDA tensor that requires grad: reading the interface raises."""

    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad")


def a_plan(dtype=np.float64, count=1):
    lay = relay.block_cyclic(8, 8, 2, 2, 1, 2)   # rank 0 holds 32 elements
    return relay.plan_transform([lay] * count, [lay] * count, dtype=dtype), lay.local_elems(0)


def check(plan, memory, dst, src, rank=0):
    return _core.check_buffers(plan._h, rank, memory, dst, src)


def refused(plan, memory, dst, src, words):
    with pytest.raises(relay.BufferMismatch) as e:
        check(plan, memory, dst, src)
    for w in words:
        assert w in str(e.value), f"{str(e.value)!r} lacks {w!r}"
    assert isinstance(e.value, TypeError) and isinstance(e.value, relay.ArgumentError)
    return e.value


# ---- memory_supported ---------------------------------------------------------------------


def test_memory_supported():
    assert relay.memory_supported("host") is True
    assert isinstance(relay.memory_supported("cuda"), bool)
    for bad in ("gpu", "CUDA", "", None, 1):
        with pytest.raises(relay.ArgumentError, match="memory must be one of host, cuda"):
            relay.memory_supported(bad)


# ---- stream handles ------------------------------------------------------------------------


class CupyStream:           # cupy.cuda.Stream
    ptr = 0x1234


class TorchStream:          # torch.cuda.Stream
    cuda_stream = 0x5678


class ProtocolStream:       # cuda.core / nvmath-python: the CUDA stream protocol
    def __cuda_stream__(self):
        return (0, 0x9abc)


class OldProtocolStream:    # the protocol's first form: a property holding the tuple
    __cuda_stream__ = (0, 0xdef0)


class NumbaStream:          # numba.cuda's Stream: int(s) is its handle
    def __int__(self):
        return 0x4242


def test_stream_handles():
    assert _stream_handle(None) == 0
    assert _stream_handle(0) == 0 and _stream_handle(7) == 7 and _stream_handle(np.uint64(9)) == 9
    assert _stream_handle(2**64 - 1) == 2**64 - 1
    assert _stream_handle(CupyStream()) == 0x1234
    assert _stream_handle(TorchStream()) == 0x5678
    assert _stream_handle(ProtocolStream()) == 0x9abc
    assert _stream_handle(OldProtocolStream()) == 0xdef0
    assert _stream_handle(NumbaStream()) == 0x4242
    for bad in (1.5, True, "0", b"0", object(), [0]):
        with pytest.raises(TypeError, match="stream"):
            _stream_handle(bad)
    for bad in (-1, 2**64):
        with pytest.raises(relay.ArgumentError, match="stream handle"):
            _stream_handle(bad)


# ---- device arrays ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", list(TYPESTR))
def test_device_arrays_accepted(dtype):
    plan, n = a_plan(dtype)
    t = TYPESTR[dtype]
    size = np.dtype(dtype).itemsize
    dst, src = FakeDeviceArray((n,), t, ptr=1 << 20), FakeDeviceArray((n,), t, ptr=1 << 30, readonly=True)
    assert check(plan, "cuda", dst, src) == ((1 << 20,), (1 << 30,))
    # the layout's local array (8 x 4, column-major), 1-D raw storage larger than needed, one slot as a sequence
    for shape, strides in [((8, 4), (size, 8 * size)), ((2 * n,), None), ((8, 4), (size, 8 * size))]:
        assert check(plan, "cuda", FakeDeviceArray(shape, t, strides=strides), src) == ((1 << 20,), (1 << 30,))
    # the logical view of a larger local array: rows 0-7 of a 10 x 4 one, whose lld is 10
    tall = relay.plan_transform(relay.block_cyclic(8, 8, 2, 2, 1, 2, lld=10), relay.block_cyclic(8, 8, 2, 2, 1, 2),
                                dtype=dtype)
    assert check(tall, "cuda", FakeDeviceArray((8, 4), t, strides=(size, 10 * size)), src) == ((1 << 20,), (1 << 30,))
    assert check(tall, "cuda", FakeDeviceArray((10, 4), t, strides=(size, 10 * size)), src) == ((1 << 20,), (1 << 30,))
    assert check(plan, "cuda", [dst], (src,)) == ((1 << 20,), (1 << 30,))
    # a rank whose buffers are empty may pass None, or empty arrays at address 0
    empty = relay.plan_transform(relay.block_cyclic(2, 2, 2, 2, 1, 2), relay.block_cyclic(2, 2, 2, 2, 1, 2),
                                 dtype=dtype)
    assert check(empty, "cuda", None, None, rank=1) == ((0,), (0,))
    assert check(empty, "cuda", FakeDeviceArray((0,), t, ptr=0), FakeDeviceArray((0, 3), t, ptr=0),
                 rank=1) == ((0,), (0,))


def test_device_arrays_refused():
    plan, n = a_plan()
    good = FakeDeviceArray((n,), ptr=1 << 30)
    cases = [
        ("read-only dst", FakeDeviceArray((n,), readonly=True), ["dst is read-only", "writable", "got 32 float64"]),
        ("float32 dst", FakeDeviceArray((n,), "<f4"), ["dst is of another type", "32 float64", "got 32 float32"]),
        ("int64 dst", FakeDeviceArray((n,), "<i8"), ["of another type", "int64"]),
        ("big-endian dst", FakeDeviceArray((n,), ">f8"), ["of another type", "big-endian"]),
        ("unreadable typestr", FakeDeviceArray((n,), "float64"), ["of another type", "float64"]),
        ("too small dst", FakeDeviceArray((n - 1,)), ["dst is too small", "at least 32", "got 31"]),
        ("strided dst", FakeDeviceArray((n,), strides=(16,), ptr=1 << 20), ["dst is of another shape or order",
                                                                            "strides (16,)"]),
        ("C order for an F layout", FakeDeviceArray((8, 4)), ["of another shape or order", "F-ordered", "(8, 4)",
                                                              "strides (8, 64)", "got shape (8, 4), strides (32, 8)"]),
        ("the transpose", FakeDeviceArray((4, 8), strides=(64, 8)), ["of another shape or order", "got shape (4, 8)"]),
        ("another shape, same size", FakeDeviceArray((4, 8), strides=(8, 32)), ["of another shape or order"]),
        ("every other column", FakeDeviceArray((8, 4), strides=(8, 128)), ["of another shape or order"]),
        ("3-D", FakeDeviceArray((8, 4, 1)), ["of another shape or order"]),
        ("dst at address 0", FakeDeviceArray((n,), ptr=0), ["address 0"]),
        ("masked dst", FakeDeviceArray((n,), mask=FakeDeviceArray((n,), "|b1")), ["malformed", "mask"]),
        ("no shape", type("NoShape", (), {"__cuda_array_interface__": {"typestr": "<f8", "data": (1, False)}})(),
         ["malformed", "NoShape", "shape"]),
        ("not a dict", type("NotADict", (), {"__cuda_array_interface__": 3})(), ["malformed", "not a dict"]),
        ("negative shape", FakeDeviceArray((-1,)), ["malformed", "shape"]),
        ("strides of another length", FakeDeviceArray((n,), strides=(8, 8)), ["malformed", "strides"]),
        ("pointer not an integer", FakeDeviceArray((n,), ptr="0x10"), ["malformed", "data"]),
        ("interface raising", RaisingDeviceArray(), ["dst", "could not be read", "requires grad"]),
        ("numpy dst", np.zeros(n), ["dst is host memory", "numpy.ndarray", "CUDA memory", "device array"]),
        ("list dst", [0.0] * n, ["dst must be a device array or a sequence of 1 device arrays", "list"]),
        ("list of one float", [0.0], ["dst must be a device array with __cuda_array_interface__", "float"]),
        ("None dst", None, ["dst is None", "32"]),
    ]
    for what, dst, words in cases:
        refused(plan, "cuda", dst, good, words)
    refused(plan, "cuda", good, np.zeros(n), ["src is host memory"])
    refused(plan, "cuda", FakeDeviceArray((n,), ptr=(1 << 30) + 8), good, ["dst and src overlap"])
    # a batch names the slot
    batch, n = a_plan(count=2)
    ok = [FakeDeviceArray((n,), ptr=(k + 1) << 20) for k in range(4)]
    assert check(batch, "cuda", ok[:2], ok[2:]) == ((1 << 20, 2 << 20), (3 << 20, 4 << 20))
    refused(batch, "cuda", [ok[0], FakeDeviceArray((n,), "<c16")], ok[2:], ["dst[1] is of another type"])
    refused(batch, "cuda", ok[0], ok[2:], ["dst", "2"])


def test_host_executors_refuse_device_arrays():
    plan, n = a_plan()
    a, b = np.zeros(n), np.ones(n)
    assert check(plan, "host", a, b) == ((a.ctypes.data,), (b.ctypes.data,))
    words = ["is a device array", "FakeDeviceArray", "__cuda_array_interface__", "host memory", 'memory="cuda"']
    refused(plan, "host", FakeDeviceArray((n,)), b, ["dst"] + words)
    refused(plan, "host", a, FakeDeviceArray((n,)), ["src"] + words)
    refused(plan, "host", RaisingDeviceArray(), b, ["dst is a device array"])
    # the host checks are unchanged
    refused(plan, "host", np.zeros(n, np.float32), b, ["dst is of another type", "float32"])
    refused(plan, "host", [0.0], b, ["buffer protocol"])
