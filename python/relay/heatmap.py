"""The heat map of a plan's rank-to-rank volumes, drawn with matplotlib
(optional): the picture ``relay-dump FILE --svg OUT.svg`` writes."""

from __future__ import annotations

from typing import Optional

import numpy as np


def draw(plan, ax=None, title: Optional[str] = None):
    """Draws plan.volumes() on ax (a new figure's Axes when None): sender
    rows, receiver columns, a log colour scale in bytes, empty cells blank."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    from matplotlib.ticker import MaxNLocator

    matrix, bin_ranks = plan.volumes()
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 5))
    shown = np.ma.masked_less_equal(matrix, 0)
    norm = LogNorm(vmin=max(shown.min(), 1), vmax=max(shown.max(), 2)) if shown.count() else None
    image = ax.imshow(shown, cmap="viridis", norm=norm, interpolation="nearest", origin="upper")
    ax.figure.colorbar(image, ax=ax, label="bytes per replay")
    unit = f" (x {bin_ranks} ranks)" if bin_ranks > 1 else ""
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("receiver" + unit)
    ax.set_ylabel("sender" + unit)
    stats = plan.stats
    ax.set_title(title or f"{plan.nranks} ranks, {stats['bytes_remote']} bytes remote in {stats['messages']} messages")
    return ax
