"""Pictures for the chapters: attention heatmaps, masking views, measured-against-theory tables.

Everything here draws with matplotlib (or builds a pandas table), so it renders offline, in JupyterLab
and in a notebook stored on GitHub. Attention probabilities come from minibert with
`output_attentions=True`: one tensor per layer, shaped (B, nh, T, T), rows = queries (the token that
attends), columns = keys (the tokens attended to); every row sums to 1.

The interactive bertviz views are in `minibert.attention_view`; training curves against the course's
reference runs are `minibert.pretrain.plot_run` (it lives with the training loop it reads).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import torch

__all__ = [
    "MASKING_COLOURS",
    "against_theory",
    "attention_heads",
    "attention_heatmap",
    "attention_layers",
    "masking_kinds",
    "masking_view",
]

# What happened to each position of a masked sequence (BERT §3.1: 15% selected, then 80/10/10).
MASKING_COLOURS = {
    "mask": "#f4a259",       # selected, replaced by [MASK]
    "random": "#e15759",     # selected, replaced by a random token
    "kept": "#59a14f",       # selected, left as it was (the model must still predict it)
    "untouched": "#ffffff",  # not selected: no label, no loss
    "special": "#d0d0d0",    # [CLS], [SEP], [PAD]: never selected
}


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


def masking_kinds(input_ids: Sequence[int], masked_ids: Sequence[int], labels: Sequence[int], *,
                  mask_token_id: int, special_tokens_mask: Sequence[int] | None = None) -> list[str]:
    """Name what masking did at each position: "mask", "random", "kept", "untouched" or "special".
    `labels` holds the original id where a position was selected and -100 elsewhere."""
    kinds = []
    for i, (orig, seen, label) in enumerate(zip(input_ids, masked_ids, labels, strict=True)):
        if special_tokens_mask is not None and special_tokens_mask[i]:
            kinds.append("special")
        elif label == -100:
            kinds.append("untouched")
        elif seen == mask_token_id:
            kinds.append("mask")
        elif seen == orig:
            kinds.append("kept")
        else:
            kinds.append("random")
    return kinds


def masking_view(seen: Sequence[str], kinds: Sequence[str], *, originals: Sequence[str] | None = None,
                 width: int = 90, ax=None, title: str | None = None):
    """The sequence as the model sees it, one coloured box per token (colours: MASKING_COLOURS); under a
    replaced token, in small type, the original it must predict. Wraps at `width` characters."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if len(seen) != len(kinds) or (originals is not None and len(originals) != len(seen)):
        raise ValueError(f"seen ({len(seen)}), kinds ({len(kinds)}) and originals "
                         f"({len(originals) if originals is not None else '-'}) must have one entry per token")
    unknown = sorted(set(kinds) - set(MASKING_COLOURS))
    if unknown:
        raise ValueError(f"unknown kinds {unknown}; use {list(MASKING_COLOURS)} (see masking_kinds)")
    seen = _drawable(seen)
    originals = None if originals is None else _drawable(originals)
    lines, line, used = [], [], 0  # greedy wrapping by characters: the font is monospaced
    for i, token in enumerate(seen):
        cost = max(len(token), len(originals[i]) if originals is not None else 0) + 2
        if line and used + cost > width:
            lines.append(line)
            line, used = [], 0
        line.append((i, used))
        used += cost
    lines.append(line)

    if ax is None:  # one x unit = one character of 9-point monospace (0.6 em = 0.075 in)
        _, ax = plt.subplots(figsize=(width * 0.075 + 0.3, 0.5 + 0.62 * len(lines)))
    ax.set_xlim(0, width)
    ax.set_ylim(len(lines), -0.35)
    ax.axis("off")
    for r, line in enumerate(lines):
        for i, x in line:
            ax.text(x, r, seen[i], family="monospace", fontsize=9, va="center", ha="left",
                    bbox=dict(boxstyle="round,pad=0.25", fc=MASKING_COLOURS[kinds[i]], ec="0.6", lw=0.5))
            if originals is not None and kinds[i] in ("mask", "random"):
                ax.text(x, r + 0.38, originals[i], family="monospace", fontsize=6.5, va="center", ha="left",
                        color="0.3")
    present = [k for k in MASKING_COLOURS if k in kinds]
    ax.legend(handles=[Patch(fc=MASKING_COLOURS[k], ec="0.6", label=k) for k in present],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(present), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=9, pad=22)
    return ax


@functools.cache
def _monospace_font():
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.ft2font import FT2Font

    return FT2Font(findfont(FontProperties(family="monospace")))


def _drawable(tokens: Sequence[str]) -> list[str]:
    """Characters the monospace font has no glyph for (a random replacement may be any of the vocab's
    scripts) written as U+XXXX, instead of an empty box and a warning at draw time."""
    font = _monospace_font()
    return ["".join(c if font.get_char_index(ord(c)) else f"U+{ord(c):04X}" for c in t) for t in tokens]


def against_theory(measured: dict, theory: dict, *, name: str = "", digits: int = 4, source: str | None = None):
    """A pandas table of measured values beside the expected ones, with their difference.
    `df.attrs["source"]` keeps where the expected values come from."""
    import pandas as pd

    missing = sorted(set(theory) - set(measured))
    if missing:
        raise ValueError(f"no measured value for {missing}")
    df = pd.DataFrame({"measured": [float(measured[k]) for k in theory],
                       "expected": [float(theory[k]) for k in theory]}, index=list(theory))
    df["difference"] = df["measured"] - df["expected"]
    df.index.name = name or None
    df = df.round(digits)
    if source:
        df.attrs["source"] = source
    return df
