#!/usr/bin/env python3
"""fft_python.py — a distributed 3-D complex FFT from Python: relay's
DistArray reshapes with numpy.fft against mpi4py-fft's PFFT (its numpy
backend), forward + backward; and the reshapes alone against PFFT's own
Transfer objects.  Run under mpiexec; prints one markdown table row per
case (bench/fft_python.sh runs the cases and records them).

Both contestants do the same serial work: mpi4py-fft's plan fixes the
pencils (the stages' axes, process grids and chunks); relay's layouts are
read from those pencils, so that each stage's local arrays are the same on
both sides, and relay's stages do exactly what mpi4py-fft's numpy backend
does (``out[...] = numpy.fft.fftn(in, axes)``, then the scaling).  Only the
moves between stages differ: relay's cached executors against mpi4py-fft's
MPI_Alltoallw over subarray types.  The two alternate, iteration by
iteration, so that the machine's load falls on both alike; each time is
the slowest rank's, and the table gives medians with the range.  The
results are compared: relay's output against mpi4py-fft's on every rank,
and both against numpy's serial fftn of the gathered input.

  mpiexec -n 4 python3 bench/fft_python.py --n 128 --decomp pencil --iters 9 [--header]
"""

import argparse
import statistics
import sys
import time

import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT

import relay

COMM = MPI.COMM_WORLD


def layout_of(pencil, cart, shape):
    """relay's N-D layout of an mpi4py-fft pencil: one mesh dimension per
    Cartesian dimension of the PFFT's grid (ranks row-major, as MPI's
    Cart_create numbers them), each sharding the axis whose subcommunicator
    it is at mpi4py-fft's own chunks (the first N % p ranks one more)."""
    mesh = [c.Get_size() for c in cart]
    places = [relay.Replicate()] * len(mesh)
    for axis, sub in enumerate(pencil.subcomm):
        p = sub.Get_size()
        if p > 1:
            q, r = divmod(shape[axis], p)
            splits = [q * k + min(k, r) for k in range(p)] + [shape[axis]]
            places[cart.index(sub)] = relay.Shard(axis, splits=splits)
    return relay.NDLayout(shape, mesh, places)


class RelayFFT:
    """The PFFT's stages with relay's moves between them: stage i's serial
    transform reads U[i] and writes V[i]; forward moves V[i] into U[i+1],
    backward U[i+1] into V[i], as mpi4py-fft's Transfer forward and backward."""

    def __init__(self, fft, shape, dtype):
        cart = list(fft.subcomm)
        pencils = [fft.pencil[0]]
        for t in fft.transfer:
            pencils.append(pencils[-1].pencil(t.axisB))
        self.layouts = [layout_of(p, cart, shape) for p in pencils]
        for layout, p in zip(self.layouts, pencils):
            assert layout.local_shape(COMM.rank) == tuple(p.subshape), (layout, p.subshape)
        self.axes = list(reversed(fft.axes))  # stage i transforms these, as xfftn[i]
        self.scale = [1.0 / np.prod([shape[a] for a in ax]) for ax in self.axes]
        self.U = [relay.DistArray.zeros(l, dtype, COMM) for l in self.layouts]
        self.V = [relay.DistArray.zeros(l, dtype, COMM) for l in self.layouts]

    def forward(self):
        last = len(self.layouts) - 1
        for i, axes in enumerate(self.axes):
            v = np.asarray(self.V[i])
            v[...] = np.fft.fftn(np.asarray(self.U[i]), axes=axes)
            v *= self.scale[i]
            if i < last:
                self.V[i].redistribute(self.layouts[i + 1], out=self.U[i + 1])
        return np.asarray(self.V[last])

    def backward(self):
        for i in reversed(range(len(self.layouts))):
            u = np.asarray(self.U[i])
            u[...] = np.fft.ifftn(np.asarray(self.V[i]), axes=self.axes[i])
            u *= 1.0 / self.scale[i]
            if i > 0:
                self.U[i].redistribute(self.layouts[i - 1], out=self.V[i - 1])
        return np.asarray(self.U[0])

    def reshapes(self):
        """Every move of forward and of backward, without the transforms."""
        for i in range(len(self.layouts) - 1):
            self.V[i].redistribute(self.layouts[i + 1], out=self.U[i + 1])
        for i in reversed(range(1, len(self.layouts))):
            self.U[i].redistribute(self.layouts[i - 1], out=self.V[i - 1])


def mpi4py_fft_reshapes(fft):
    xf, xb = fft.forward._xfftn, fft.backward._xfftn
    for i, t in enumerate(fft.transfer):
        t.forward(xf[i].output_array, xf[i + 1].input_array)
    for i, t in enumerate(reversed(fft.transfer)):
        t.backward(xb[i].output_array, xb[i + 1].input_array)


def timed(fn):
    COMM.Barrier()
    t0 = time.perf_counter()
    fn()
    return COMM.allreduce(time.perf_counter() - t0, op=MPI.MAX)


def median_range(seconds):
    ms = [1e3 * s for s in seconds]
    return statistics.median(ms), min(ms), max(ms)


def fmt(m):
    return f"{m[0]:.1f} ({m[1]:.1f}-{m[2]:.1f})"


def race(a, b, iters):
    """Times a and b alternately, each first every other iteration, after one untimed call each."""
    a(), b()
    ta, tb = [], []
    for k in range(iters):
        if k % 2:
            tb.append(timed(b)), ta.append(timed(a))
        else:
            ta.append(timed(a)), tb.append(timed(b))
    ratios = sorted(x / y for x, y in zip(ta, tb))
    return median_range(ta), median_range(tb), statistics.median(ratios), ratios[0], ratios[-1]


def max_diff(x, y):
    return COMM.allreduce(float(np.max(np.abs(x - y))) if x.size else 0.0, op=MPI.MAX)


def check(fft, ours, g):
    """Max |difference| of the outputs: relay's against mpi4py-fft's, and
    relay's gathered against numpy's serial fftn; and of the round trip."""
    u = relay.scatter(g if COMM.rank == 0 else None, ours.layouts[0], COMM)
    np.asarray(ours.U[0])[...] = np.asarray(u)
    fft.forward.input_array[...] = np.asarray(u)
    theirs_out, ours_out = fft.forward(), ours.forward()
    against_theirs = max_diff(ours_out, theirs_out)
    whole = ours.V[-1].gather(0)
    serial = COMM.bcast(float(np.max(np.abs(whole - np.fft.fftn(g) / g.size))) if COMM.rank == 0 else None)
    back = ours.backward()
    round_trip = max_diff(back, np.asarray(u))
    return max(against_theirs, 0.0), serial, round_trip


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--decomp", choices=("slab", "pencil"), default="pencil")
    ap.add_argument("--iters", type=int, default=9)
    ap.add_argument("--header", action="store_true")
    args = ap.parse_args()
    shape, dtype = (args.n,) * 3, np.dtype(np.complex128)
    grid, collapse = ((-1,), True) if args.decomp == "slab" else (None, False)
    fft = PFFT(COMM, shape, axes=(0, 1, 2), dtype=dtype, grid=grid, collapse=collapse, backend="numpy")
    ours = RelayFFT(fft, shape, dtype)
    rng = np.random.default_rng(68)
    g = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) if COMM.rank == 0 else None
    d_theirs, d_serial, d_trip = check(fft, ours, g)
    del g
    mesh = "x".join(str(c.Get_size()) for c in fft.subcomm if c.Get_size() > 1) or "1"
    fft_relay, fft_theirs, ratio, lo, hi = race(lambda: (ours.forward(), ours.backward()),
                                                lambda: (fft.forward(), fft.backward()), args.iters)
    re_relay, re_theirs, re_ratio, re_lo, re_hi = race(ours.reshapes, lambda: mpi4py_fft_reshapes(fft), args.iters)
    if COMM.rank == 0:
        if args.header:
            print("| case | ranks | moves | FFT: relay ms | mpi4py-fft ms | relay / mpi4py-fft | reshapes: relay ms "
                  "| Transfer ms | relay / Transfer | max diff: relay vs mpi4py-fft, vs serial, round trip |")
            print("|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {args.n}^3 {args.decomp}s {mesh} | {COMM.size} | {len(fft.transfer)} | {fmt(fft_relay)} "
              f"| {fmt(fft_theirs)} | **{ratio:.2f}** ({lo:.2f}-{hi:.2f}) | {fmt(re_relay)} | {fmt(re_theirs)} "
              f"| **{re_ratio:.2f}** ({re_lo:.2f}-{re_hi:.2f}) | {d_theirs:.1e}, {d_serial:.1e}, {d_trip:.1e} |")
        sys.stdout.flush()
    relay.plan_cache_clear()
    fft.destroy()


if __name__ == "__main__":
    main()
