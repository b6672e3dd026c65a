"""Attention pictures: one head, a grid of one layer's heads, every layer, and one soft lookup.

Attention probabilities come from minibert with `output_attentions=True`: one tensor per layer,
shaped (B, nh, T, T), rows = queries (the token that attends), columns = keys (the tokens attended
to); every row sums to 1. The interactive bertviz views are in `minibert.attention_view`.

Every figure is readable at its stored size: token labels of at least 8 pt (panels grow with the
number of tokens, grids get fewer columns), one colour bar per figure, axis labels, and a
constrained layout, so that titles never overlap.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .fonts import missing_glyphs

LABEL_PT = 8          # token labels: the smallest size readable at 100% zoom
MAX_WIDTH = 13.0      # inches: three panels of a 23-token pair side by side, with labels and colour bar
COLOUR_BAR_ROOM = 1.3  # inches: the colour bar, its ticks and its label
COLOUR_LABEL = "attention probability"


def _matrix(probs) -> torch.Tensor:
    probs = torch.as_tensor(probs).detach().float().cpu()
    if probs.ndim != 2 or probs.shape[0] != probs.shape[1]:
        raise ValueError(f"expected one head's (T, T) attention probabilities, got shape {tuple(probs.shape)}; "
                         "index a layer's (B, nh, T, T) tensor as attn[b, head]")
    return probs


def _check_tokens(tokens: Sequence[str], T: int) -> list[str]:
    if len(tokens) != T:
        raise ValueError(f"{len(tokens)} tokens for a {T}×{T} attention matrix; "
                         "pass the tokens of that sequence, padding removed from both")
    missing = missing_glyphs(tokens)
    if missing:
        raise ValueError(f"the font has no glyph for {missing!r}; choose an example the font can draw")
    return list(tokens)


def panel_size(T: int) -> float:
    """Inches per (T, T) panel so that T token labels of LABEL_PT points fit: a row needs about
    1.2 × LABEL_PT points (72 points to the inch)."""
    return max(2.2, T * 1.2 * LABEL_PT / 72 + 0.25)


def attention_heatmap(probs, tokens: Sequence[str], *, ax=None, title: str | None = None,
                      labels: bool = True, vmax: float | None = 1.0, colorbar: bool | None = None,
                      annotate: bool = False):
    """One head: a (T, T) matrix of probabilities, queries down, keys across. Returns the axes.
    Without `ax`, a figure of the right size is made, with a colour bar (`colorbar` defaults to
    "only when the figure is mine"). `annotate` writes each probability in its cell (small T)."""
    import matplotlib.pyplot as plt

    probs = _matrix(probs)                                   # (T, T)
    tokens = _check_tokens(tokens, probs.shape[0])
    if ax is None:
        size = min(9.0, panel_size(len(tokens)) + 1.6)       # + room for the labels and the colour bar
        _, ax = plt.subplots(figsize=(size + 0.6, size), layout="constrained")
        colorbar = True if colorbar is None else colorbar
    image = ax.imshow(probs.numpy(), cmap="viridis", vmin=0.0, vmax=vmax)
    ticks = range(len(tokens))
    if labels:
        ax.set_xticks(ticks, tokens, rotation=90, fontsize=LABEL_PT)
        ax.set_yticks(ticks, tokens, fontsize=LABEL_PT)
        ax.set_xlabel("key (attended to)")
        ax.set_ylabel("query (attending)")
    else:
        ax.set_xticks([])
        ax.set_yticks([])
    if annotate:
        for (i, j), p in zip(torch.cartesian_prod(torch.arange(len(tokens)), torch.arange(len(tokens))).tolist(),
                             probs.flatten().tolist()):
            ax.text(j, i, f"{p:.2f}", ha="center", va="center", fontsize=LABEL_PT,
                    color="black" if p > 0.6 * (vmax or 1) else "white")
    if title:
        ax.set_title(title, fontsize=10)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label=COLOUR_LABEL)
    return ax


def attention_heads(probs, tokens: Sequence[str], *, heads: Sequence[int] | None = None, ncols: int = 3,
                    size: float | None = None, title: str | None = None, titles: Sequence[str] | None = None,
                    annotate: bool = False):
    """A grid of one layer's heads: `probs` is (nh, T, T); `heads` picks some (default: all), in
    `ncols` columns (fewer when the figure would pass MAX_WIDTH inches). `size` (inches per panel)
    is raised to what T labels of 8+ pt need. Token labels on the left column and the bottom row,
    one colour bar. Returns the figure."""
    probs = torch.as_tensor(probs).detach().float().cpu()
    if probs.ndim != 3:
        raise ValueError(f"expected one layer's (nh, T, T) attention, got shape {tuple(probs.shape)}; "
                         "index the (B, nh, T, T) tensor as attn[b]")
    heads = list(range(probs.shape[0])) if heads is None else list(heads)
    titles = [f"head {h}" for h in heads] if titles is None else list(titles)
    if len(titles) != len(heads):
        raise ValueError(f"{len(titles)} titles for {len(heads)} heads")
    fig = _grid([(probs[h], t) for h, t in zip(heads, titles)], tokens, ncols, size, annotate=annotate)
    if title:
        fig.suptitle(title)
    return fig


def attention_layers(attentions: Sequence[torch.Tensor], tokens: Sequence[str], *, batch_index: int = 0,
                     head: int | None = None, ncols: int = 3, size: float | None = None,
                     title: str | None = None):
    """Every layer at a glance: each panel is one layer's attention, averaged over its heads (or one
    `head`). `attentions` is what minibert returns with output_attentions=True. Returns the figure."""
    T = len(tokens)
    panels = []
    for layer in attentions:  # (B, nh, T', T'); padding beyond the tokens is cut off
        a = layer[batch_index, :, :T, :T].detach().float().cpu()
        panels.append(a.mean(0) if head is None else a[head])
    what = "mean of heads" if head is None else f"head {head}"
    fig = _grid([(p, f"layer {i} ({what})") for i, p in enumerate(panels)], tokens, ncols, size)
    if title:
        fig.suptitle(title)
    return fig


def _grid(panels, tokens: Sequence[str], ncols: int, size: float | None, annotate: bool = False):
    """(matrix, title) heatmaps in rows of `ncols`; token labels on the left column and the bottom
    row; one colour bar for the figure; constrained layout."""
    import matplotlib.pyplot as plt

    tokens = _check_tokens(tokens, _matrix(panels[0][0]).shape[0])
    longest_title = max(len(title) for _, title in panels)
    size = max(size or 0.0, panel_size(len(tokens)), 0.08 * longest_title)  # 10-pt titles: ~0.08 in a character
    label_room = 0.1 * max(len(t) for t in tokens) + 0.5   # inches for the longest label, and the axis label
    room = label_room + COLOUR_BAR_ROOM
    ncols = max(1, min(ncols, len(panels), int((MAX_WIDTH - room) // (size + 0.1))))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, layout="constrained",
                             figsize=((size + 0.1) * ncols + room, (size + 0.4) * nrows + label_room))
    for i, ax in enumerate(axes.flat):
        if i >= len(panels):
            ax.axis("off")
            continue
        attention_heatmap(panels[i][0], tokens, ax=ax, title=panels[i][1], labels=False, annotate=annotate)
        ticks = range(len(tokens))
        if i % ncols == 0:
            ax.set_yticks(ticks, tokens, fontsize=LABEL_PT)
            ax.set_ylabel("query (attending)")
        if i >= len(panels) - ncols:  # the lowest panel of each column
            ax.set_xticks(ticks, tokens, rotation=90, fontsize=LABEL_PT)
            ax.set_xlabel("key (attended to)")
    used = [ax for ax in axes.flat if ax.images]
    fig.colorbar(used[0].images[0], ax=axes, shrink=min(0.9, 3.0 / nrows + 0.2), label=COLOUR_LABEL)
    return fig


def soft_lookup(tokens: Sequence[str], query, keys, values, *, query_name: str = "query",
                features: Sequence[str] | None = None, value_features: Sequence[str] | None = None,
                scale: float = 1.0):
    """One query's attention as a soft dictionary lookup, in four panels: the keys (T, d) with the
    query; the scores q·k_j·scale; the weights softmax(scores); the values (T, d_v) and their
    weighted sum. Every number is written in its cell. Returns the figure."""
    import matplotlib.pyplot as plt

    q = torch.as_tensor(query, dtype=torch.float32)          # (d,)
    K = torch.as_tensor(keys, dtype=torch.float32)           # (T, d)
    V = torch.as_tensor(values, dtype=torch.float32)         # (T, d_v)
    tokens = list(tokens)
    if missing_glyphs(tokens + [query_name] + list(features or []) + list(value_features or [])):
        raise ValueError("the font cannot draw every label; choose another example")
    scores = K @ q * scale                                   # (T,)
    weights = scores.softmax(-1)                             # (T,)
    out = weights @ V                                        # (d_v,)
    T = len(tokens)
    fig, axes = plt.subplots(1, 4, figsize=(11, 0.45 * T + 2.2), layout="constrained",
                             gridspec_kw={"width_ratios": [K.shape[1] + 1, 2, 2, V.shape[1] + 1]})
    _table(axes[0], torch.cat([K, q[None]]), tokens + [query_name], features,
           f"keys k_j, and q = {query_name}")
    for ax, bars, name in [(axes[1], scores, "score q·k_j" + ("" if scale == 1 else f" × {scale:.3g}")),
                           (axes[2], weights, "weight = softmax(scores)")]:
        ax.barh(range(T), bars.tolist(), color="#4e79a7")
        ax.set_yticks(range(T), tokens, fontsize=LABEL_PT)
        ax.set_ylim(T - 0.5 + 1, -0.5)                       # same rows as the tables, tokens top down
        ax.axvline(0, color="black", lw=0.8)
        for i, b in enumerate(bars.tolist()):
            ax.text(max(b, 0.0), i, f" {b:.2f}", va="center", ha="left", fontsize=LABEL_PT)  # clear of the labels
        lo, hi = min(0.0, bars.min().item()), max(0.0, bars.max().item())
        ax.set_xlim(lo - 0.1 * (hi - lo) - 1e-3, hi + 0.45 * (hi - lo) + 1e-3)
        ax.set_title(name, fontsize=10)
    axes[2].set_xlabel("they sum to 1")
    image = _table(axes[3], torch.cat([V, out[None]]), tokens + ["Σ weight × value"], value_features,
                   "values v_j, and their weighted sum")
    fig.colorbar(image, ax=axes, shrink=0.8, label="vector component")
    return fig


def _table(ax, matrix, rows, columns, title):
    """An annotated heatmap of a small matrix; the last row (a result) is set apart by a line."""
    vmax = max(1.0, matrix.abs().max().item())
    image = ax.imshow(matrix.numpy(), cmap="RdBu_r", vmin=-vmax, vmax=vmax, aspect="auto")
    for (i, j), x in zip(torch.cartesian_prod(torch.arange(matrix.shape[0]), torch.arange(matrix.shape[1])).tolist(),
                         matrix.flatten().tolist()):
        ax.text(j, i, f"{x:.2g}", ha="center", va="center", fontsize=LABEL_PT)
    ax.axhline(matrix.shape[0] - 1.5, color="black", lw=2)
    ax.set_yticks(range(len(rows)), rows, fontsize=LABEL_PT)
    cols = columns or [f"{j}" for j in range(matrix.shape[1])]
    ax.set_xticks(range(matrix.shape[1]), cols, fontsize=LABEL_PT, rotation=30 if columns else 0)
    ax.set_title(title, fontsize=10)
    return image
