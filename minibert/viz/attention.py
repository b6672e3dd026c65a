"""Attention heatmaps: one head, one layer's heads, every layer.

Attention probabilities come from minibert with `output_attentions=True`: one tensor per layer,
shaped (B, nh, T, T), rows = queries (the token that attends), columns = keys (the tokens attended
to); every row sums to 1. The interactive bertviz views are in `minibert.attention_view`.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def _matrix(probs) -> torch.Tensor:
    probs = torch.as_tensor(probs).detach().float().cpu()
    if probs.ndim != 2 or probs.shape[0] != probs.shape[1]:
        raise ValueError(f"expected one head's (T, T) attention probabilities, got shape {tuple(probs.shape)}; "
                         "index a layer's (B, nh, T, T) tensor as attn[b, head]")
    return probs


def attention_heatmap(probs, tokens: Sequence[str], *, ax=None, title: str | None = None,
                      labels: bool = True, vmax: float | None = 1.0):
    """One head: a (T, T) matrix of probabilities, queries down, keys across. Returns the axes."""
    import matplotlib.pyplot as plt

    probs = _matrix(probs)
    if len(tokens) != probs.shape[0]:
        raise ValueError(f"{len(tokens)} tokens for a {probs.shape[0]}×{probs.shape[1]} attention matrix; "
                         "pass the tokens of that sequence, padding removed from both")
    if ax is None:
        size = min(9.0, 1.5 + 0.28 * len(tokens))
        _, ax = plt.subplots(figsize=(size, size))
    ax.imshow(probs.numpy(), cmap="viridis", vmin=0.0, vmax=vmax)
    ticks = range(len(tokens))
    if labels:
        ax.set_xticks(ticks, tokens, rotation=90, fontsize=8)
        ax.set_yticks(ticks, tokens, fontsize=8)
        ax.set_xlabel("key (attended to)")
        ax.set_ylabel("query (attending)")
    else:
        ax.set_xticks([])
        ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def attention_heads(probs, tokens: Sequence[str], *, heads: Sequence[int] | None = None, ncols: int = 4,
                    size: float = 2.1, title: str | None = None):
    """A grid of one layer's heads: `probs` is (nh, T, T). Token labels on the left column and
    bottom row only. Returns the figure."""
    probs = torch.as_tensor(probs).detach().float().cpu()
    if probs.ndim != 3:
        raise ValueError(f"expected one layer's (nh, T, T) attention, got shape {tuple(probs.shape)}; "
                         "index the (B, nh, T, T) tensor as attn[b]")
    heads = list(range(probs.shape[0])) if heads is None else list(heads)
    fig = _grid([(probs[h], f"head {h}") for h in heads], tokens, ncols, size, bottom_labels=True)
    if title:
        fig.suptitle(title)
        fig.tight_layout()
    return fig


def attention_layers(attentions: Sequence[torch.Tensor], tokens: Sequence[str], *, batch_index: int = 0,
                     head: int | None = None, ncols: int = 6, size: float = 2.2):
    """Every layer at a glance: each panel is one layer's attention, averaged over its heads (or one
    `head`). `attentions` is what minibert returns with output_attentions=True. Returns the figure."""
    T = len(tokens)
    panels = []
    for layer in attentions:  # (B, nh, T', T'); padding beyond the tokens is cut off
        a = layer[batch_index, :, :T, :T].detach().float().cpu()
        panels.append(a.mean(0) if head is None else a[head])
    what = "mean of heads" if head is None else f"head {head}"
    return _grid([(p, f"layer {i} ({what})") for i, p in enumerate(panels)], tokens, ncols, size, bottom_labels=False)


def _grid(panels, tokens: Sequence[str], ncols: int, size: float, bottom_labels: bool):
    """(matrix, title) heatmaps in rows of `ncols`; token labels on the left column (and the bottom row)."""
    import matplotlib.pyplot as plt

    nrows, ncols = -(-len(panels) // ncols), min(ncols, len(panels))
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols + 1.0, size * nrows + 1.0), squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i >= len(panels):
            ax.axis("off")
            continue
        attention_heatmap(panels[i][0], tokens, ax=ax, title=panels[i][1], labels=False)
        if i % ncols == 0:
            ax.set_yticks(range(len(tokens)), tokens, fontsize=6)
        if bottom_labels and i >= len(panels) - ncols:
            ax.set_xticks(range(len(tokens)), tokens, rotation=90, fontsize=6)
    fig.tight_layout()
    return fig
