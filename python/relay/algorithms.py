"""relay's two algorithms as plans: BMMC permutations (Cormen's factor once,
perform many; relay/bmmc.h) and SUMMA/HSUMMA matrix products (relay/hsumma.h).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _core
from .layouts import Layout
from .plans import Plan, _DTYPES, type_word


@dataclass(frozen=True)
class BMMC:
    """A BMMC permutation of N = 2^n indices: index x goes to
    y = A x XOR c, A a nonsingular n x n matrix over GF(2) given by its
    columns (bit i of ``columns[j]`` is A's entry in row i, column j) and c
    the ``complement``.  Make the standard ones with the class methods."""
    n: int
    columns: tuple[int, ...]
    complement: int = 0

    def _t(self) -> tuple:
        return (self.n, list(self.columns), self.complement)

    @classmethod
    def _of(cls, t: tuple) -> "BMMC":
        return cls(t[0], tuple(t[1]), t[2])

    @classmethod
    def identity(cls, n: int) -> "BMMC":
        return cls._of(_core.bmmc_standard("identity", n))

    @classmethod
    def transpose(cls, rows_log: int, cols_log: int) -> "BMMC":
        """A 2^rows_log x 2^cols_log column-major matrix to its column-major transpose."""
        return cls._of(_core.bmmc_standard("transpose", rows_log, cols_log))

    @classmethod
    def bit_reversal(cls, n: int) -> "BMMC":
        return cls._of(_core.bmmc_standard("bit_reversal", n))

    @classmethod
    def vector_reversal(cls, n: int) -> "BMMC":
        return cls._of(_core.bmmc_standard("vector_reversal", n))

    @classmethod
    def gray_code(cls, n: int) -> "BMMC":
        return cls._of(_core.bmmc_standard("gray_code", n))

    @classmethod
    def shuffle(cls, n: int) -> "BMMC":
        return cls._of(_core.bmmc_standard("shuffle", n))

    @classmethod
    def unshuffle(cls, n: int) -> "BMMC":
        return cls._of(_core.bmmc_standard("unshuffle", n))

    def then(self, second: "BMMC") -> "BMMC":
        """This permutation, then ``second`` (Lemma 1)."""
        return BMMC._of(_core.bmmc_compose(self._t(), second._t()))

    def inverse(self) -> "BMMC":
        return BMMC._of(_core.bmmc_inverse(self._t()))

    def apply(self, x: Union[int, np.ndarray]) -> Union[int, np.ndarray]:
        """y for an index, or for every index of an integer array."""
        if isinstance(x, (int, np.integer)):
            return _core.bmmc_apply(self._t(), int(x))
        # As relay_bmmc_apply: indices of n bits, the result masked to n bits.
        mask = (1 << self.n) - 1
        x = np.asarray(x)
        if x.size and (np.any(x < 0) or np.any(x > mask)):
            from .errors import ArgumentError
            raise ArgumentError(f"an index has more than n = {self.n} bits")
        x = x.astype(np.uint64)
        y = np.full(x.shape, self.complement & mask, np.uint64)
        for j, col in enumerate(self.columns):
            y ^= np.where((x >> np.uint64(j)) & np.uint64(1), np.uint64(col & mask), np.uint64(0))
        return y


def plan_bmmc(perm: BMMC, p: int, f: int, dtype: Any = np.float64) -> Plan:
    """Plans ``perm`` on 2^p ranks whose rank bits start at bit f of an
    index (f = n - p: consecutive blocks; f = 0: round robin), moving
    elements of ``dtype`` (any numpy dtype: a BMMC plan moves bytes).
    Each rank's buffers hold 2^(n-p) elements."""
    return Plan(_core.plan_bmmc(perm._t(), p, f, np.dtype(dtype).itemsize))


def bmmc_info(plan: Plan) -> dict:
    """A BMMC plan's facts: n, p, f, elem_size, rank (2^rank partners per
    rank), and the permutation and its factors V and W as :class:`BMMC`."""
    info = _core.plan_bmmc_info(plan._h)
    for key in ("perm", "v", "w"):
        info[key] = BMMC._of(info[key])
    return info


# ---- SUMMA and HSUMMA -----------------------------------------------------------------

@dataclass(frozen=True)
class Network:
    """Hockney's parameters: latency ``alpha`` (seconds), reciprocal
    bandwidth ``beta`` (seconds per byte), and the broadcast model 'vdg'
    (Van de Geijn's scatter-allgather) or 'binomial'."""
    alpha: float = 0.0
    beta: float = 0.0
    bcast: str = "vdg"

    def _t(self) -> tuple:
        return (float(self.alpha), float(self.beta), self.bcast)


@dataclass(frozen=True)
class HsummaParams:
    """C := alpha A B + beta C, C m x n, A m x k, B k x n, on a
    grid_rows x grid_cols grid arranged in groups (0 x 0: chosen by the cost
    model, now when ``network`` is given, else measured at bind)."""
    m: int
    n: int
    k: int
    grid: tuple[int, int]
    dtype: Any = np.float64
    groups: tuple[int, int] = (0, 0)
    inner_block: int = 64
    outer_block: int = 64
    dist: str = "checkerboard"
    dist_block: int = 64
    network: Network = Network()

    def _t(self) -> tuple:
        return (self.m, self.n, self.k, self.grid[0], self.grid[1], self.groups[0], self.groups[1],
                self.inner_block, self.outer_block, self.dist, self.dist_block, type_word(self.dtype),
                self.network._t())


def plan_hsumma(m: int, n: int, k: int, grid: tuple[int, int], *, dtype: Any = np.float64,
                groups: tuple[int, int] = (0, 0), inner_block: int = 64, outer_block: int = 64,
                dist: str = "checkerboard", dist_block: int = 64, network: Optional[Network] = None) -> Plan:
    """Plans C := alpha A B + beta C with hierarchical SUMMA on a grid of
    grid[0] x grid[1] ranks (rank r at grid row r // grid[1]).

    Args:
        groups: I x J groups, I dividing grid[0] and J grid[1]; (1, 1) and
            the grid itself are plain SUMMA; (0, 0): automatic.
        inner_block, outer_block: b and B, the steps of k.
        dist: 'checkerboard' (one block per rank) or 'block_cyclic'
            (square blocks of dist_block).
        network: the machine's :class:`Network` for automatic groups now;
            None measures it when the plan is bound.

    Each rank's A, B and C are column-major at their local row count
    (:func:`hsumma_layout` describes them for :func:`relay.plan_transform`).
    A replay is ``Executor.run(C, (A, B), alpha, beta)``.
    """
    params = HsummaParams(m, n, k, tuple(grid), dtype, tuple(groups), inner_block, outer_block, dist, dist_block,
                          network or Network())
    return Plan(_core.plan_hsumma(params._t()))


def hsumma_info(plan: Plan) -> dict:
    """An HSUMMA plan's parameters (groups as planned, 0 x 0 when chosen at
    bind), where its groups came from, and its outer and inner steps."""
    info = _core.plan_hsumma_info(plan._h)
    p = info["params"]
    net = p.pop("network")
    p["dtype"] = _DTYPES[p.pop("type")]
    p["grid"] = (p.pop("grid_rows"), p.pop("grid_cols"))
    p["groups"] = (p.pop("group_rows"), p.pop("group_cols"))
    info["params"] = HsummaParams(network=Network(*net), **p)
    return info


def hsumma_layout(plan: Plan, which: str) -> Layout:
    """The 2-D layout of operand 'A', 'B' or 'C' of an HSUMMA plan."""
    if which not in ("A", "B", "C", "a", "b", "c"):
        from .errors import ArgumentError
        raise ArgumentError(f"which must be 'A', 'B' or 'C', not {which!r}")
    return Layout(_core.plan_hsumma_layout(plan._h, "ABC".index(which.upper())))


def hsumma_model(params: HsummaParams, groups: tuple[int, int], network: Network) -> tuple[float, float, float]:
    """(seconds, latency, bandwidth): the cost model's communication time of
    one replay with these groups (section IV of the HSUMMA paper)."""
    return _core.hsumma_model(params._t(), groups[0], groups[1], network._t())


def hsumma_best_groups(params: HsummaParams, network: Network) -> tuple[int, int]:
    """The groups that minimise the model (ties go to fewer groups)."""
    return _core.hsumma_best_groups(params._t(), network._t())


__all__ = ["BMMC", "plan_bmmc", "bmmc_info", "Network", "HsummaParams", "plan_hsumma", "hsumma_info",
           "hsumma_layout", "hsumma_model", "hsumma_best_groups"]
