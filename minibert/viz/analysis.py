"""Pictures of chapter 06 (what attention learns): one number per head as an annotated layer × head
grid, measurements by layer as lines (one panel per model or per kind of weighting), and two
per-head measurements against each other, coloured by layer."""

from __future__ import annotations

import torch


def head_grid(values, *, title: str, label: str, fmt: str = "{:.2f}", ax=None, cmap: str = "viridis",
              vmin: float | None = None, vmax: float | None = None):
    """(L, nh) values as a heatmap, layers down and heads across, each value written in its cell, with
    a colour bar named `label`. Returns the axes."""
    import matplotlib.pyplot as plt

    v = torch.as_tensor(values).detach().double().cpu()
    if v.ndim != 2:
        raise ValueError(f"expected (layers, heads) values, got shape {tuple(v.shape)}")
    L, nh = v.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 0.72 * nh + 1.8), 0.55 * L + 1.4), layout="constrained")
    lo = v.min().item() if vmin is None else vmin
    hi = v.max().item() if vmax is None else vmax
    image = ax.imshow(v.numpy(), cmap=cmap, vmin=lo, vmax=hi, aspect="auto")
    for layer in range(L):
        for head in range(nh):
            x = v[layer, head].item()
            dark = (x - lo) / ((hi - lo) or 1.0) < 0.55  # white text on viridis' dark half
            ax.text(head, layer, fmt.format(x), ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    ax.set_xticks(range(nh), [str(h) for h in range(nh)], fontsize=9)
    ax.set_yticks(range(L), [str(layer) for layer in range(L)], fontsize=9)
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.set_title(title, fontsize=11)
    ax.figure.colorbar(image, ax=ax, label=label, shrink=0.9)
    return ax


def layer_lines(panels: dict[str, dict[str, list[float]]], *, ylabel: str, baselines: dict[str, float] | None = None,
                size: tuple[float, float] = (4.6, 3.6), sharey: bool = True):
    """One panel per entry of `panels` ({panel title: {series name: one value per layer}}), layers on
    the x axis; `baselines` ({name: value}) are drawn as dashed horizontal lines in every panel.
    Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(size[0] * len(panels), size[1]), squeeze=False,
                             sharey=sharey, layout="constrained")
    for ax, (title, series) in zip(axes[0], panels.items()):
        for name, values in series.items():
            values = [float(x) for x in values]
            ax.plot(range(len(values)), values, marker="o", label=name)
        for name, value in (baselines or {}).items():
            ax.axhline(value, ls="--", color="0.5", lw=1)
            ax.annotate(name, (0, value), xytext=(2, 3), textcoords="offset points", fontsize=8, color="0.35")
        n = max(len(v) for v in series.values())
        ax.set_xticks(range(n))
        ax.set(xlabel="layer", title=title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel(ylabel)
    return fig


def head_scatter(x, y, *, xlabel: str, ylabel: str, title: str, ax=None):
    """Each head as a point, (L, nh) measurements `x` against `y`, coloured by layer. Returns the axes."""
    import matplotlib.pyplot as plt

    x, y = (torch.as_tensor(v).detach().double().cpu() for v in (x, y))
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError(f"x and y must both be (layers, heads), got {tuple(x.shape)} and {tuple(y.shape)}")
    if ax is None:
        _, ax = plt.subplots(figsize=(5.6, 4.2), layout="constrained")
    colours = plt.get_cmap("viridis", x.shape[0])
    for layer in range(x.shape[0]):
        ax.scatter(x[layer], y[layer], color=colours(layer), label=f"layer {layer}", s=28)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncols=2)
    return ax
