"""Pictures and tables of chapter 03 (the encoder): small vectors as annotated grids, one encoder
layer drawn post-LN and pre-LN, GELU against its approximation, and where attention goes by kind
of key ([CLS], [SEP], punctuation, the token itself, its own segment, the other segment)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import torch

SPECIALS = ("[CLS]", "[SEP]")


def vector_grids(panels: dict, tokens: Sequence[str], *, title: str | None = None, size: float = 2.6):
    """Side-by-side grids of small (T, D) matrices, one row per token, every value written in its cell,
    on one shared colour scale (a colour bar at the right). For worked examples of a few numbers.
    Returns the figure."""
    import matplotlib.pyplot as plt

    mats = {k: torch.as_tensor(v).detach().double().cpu() for k, v in panels.items()}
    for name, m in mats.items():
        if m.ndim != 2 or m.shape[0] != len(tokens):
            raise ValueError(f"panel {name!r} has shape {tuple(m.shape)}; expected (T, D) with T = {len(tokens)} tokens")
    vmax = max(m.abs().max().item() for m in mats.values()) or 1.0
    D = max(m.shape[1] for m in mats.values())
    fig, axes = plt.subplots(1, len(mats), figsize=(size * len(mats) + 1.2, 0.55 * len(tokens) + 1.3),
                             squeeze=False, layout="constrained")
    for ax, (name, m) in zip(axes[0], mats.items()):
        image = ax.imshow(m.numpy(), cmap="RdBu_r", vmin=-vmax, vmax=vmax, aspect="auto")
        for (t, d), value in zip(((t, d) for t in range(m.shape[0]) for d in range(m.shape[1])), m.flatten()):
            ax.text(d, t, f"{value.item():.2f}", ha="center", va="center", fontsize=9,
                    color="white" if abs(value.item()) > 0.6 * vmax else "black")
        ax.set_xticks(range(m.shape[1]), [str(d) for d in range(m.shape[1])], fontsize=9)
        ax.set_yticks(range(len(tokens)), tokens, fontsize=10)
        ax.set_xlabel("dimension", fontsize=9)
        ax.set_title(name, fontsize=10)
        ax.set_xlim(-0.5, D - 0.5)
    fig.colorbar(image, ax=list(axes[0]), shrink=0.9, label="value")
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


# One encoder layer as boxes from bottom (input) to top (output): (label, kind) per step; "add" is a
# residual sum whose second input comes from the saved stream.
_LAYERS = {
    "post": [("x", "io"), ("self-attention", "sub"), ("+", "add"), ("LayerNorm", "norm"),
             ("feed-forward", "sub"), ("+", "add"), ("LayerNorm", "norm"), ("output", "io")],
    "pre": [("x", "io"), ("LayerNorm", "norm"), ("self-attention", "sub"), ("+", "add"),
            ("LayerNorm", "norm"), ("feed-forward", "sub"), ("+", "add"), ("output", "io")],
}
_COLOURS = {"io": "#ffffff", "sub": "#a6cee3", "add": "#ffffff", "norm": "#fdbf6f"}


def layer_diagram(kind: str = "post", *, ax=None, title: str | None = None):
    """One encoder layer as a flow chart, input at the bottom: `kind="post"` (BERT: LayerNorm after each
    residual sum) or `"pre"` (GPT-2: LayerNorm inside the branch). The residual path is drawn at the
    left of the boxes. Returns the axes."""
    import matplotlib.pyplot as plt

    if kind not in _LAYERS:
        raise ValueError(f"kind must be 'post' or 'pre', not {kind!r}")
    steps = _LAYERS[kind]
    if ax is None:
        _, ax = plt.subplots(figsize=(3.2, 5.2), layout="constrained")
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-0.6, len(steps) - 0.4)
    ax.axis("off")
    for y, (label, what) in enumerate(steps):
        shape = "circle,pad=0.2" if what == "add" else "round,pad=0.35"
        ax.text(0, y, label, ha="center", va="center", fontsize=10, zorder=3,
                bbox=dict(boxstyle=shape, fc=_COLOURS[what], ec="0.3", lw=0.8))
        if y:
            ax.annotate("", xy=(0, y - 0.28), xytext=(0, y - 0.72), zorder=2,
                        arrowprops=dict(arrowstyle="->", color="0.2", lw=1.0))
    # Each residual: from the stream entering the sub-layer's branch to the "+" that closes it.
    adds = [y for y, (_, what) in enumerate(steps) if what == "add"]
    branch_starts = [0, 3]  # the stream leaves before step 1 and before step 4, in both arrangements
    for start, end in zip(branch_starts, adds):
        x_left = -1.25
        ax.plot([0, x_left, x_left], [start + 0.5, start + 0.5, end], color="#1f78b4", lw=1.6, zorder=1)
        ax.annotate("", xy=(-0.22, end), xytext=(x_left, end),
                    arrowprops=dict(arrowstyle="->", color="#1f78b4", lw=1.6))
    ax.text(-1.35, (adds[0] + 0.5) / 2, "residual", rotation=90, ha="center", va="center", fontsize=8,
            color="#1f78b4")
    ax.set_title(title or {"post": "post-LN (BERT)", "pre": "pre-LN (GPT-2)"}[kind], fontsize=11)
    return ax


def layer_diagrams():
    """Post-LN (BERT) and pre-LN (GPT-2) side by side, the same boxes in another order. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.4, 5.2), layout="constrained")
    layer_diagram("post", ax=left)
    layer_diagram("pre", ax=right)
    return fig


def gelu_curves(x, exact, tanh):
    """GELU's exact form and its tanh approximation on the grid `x` (1-d), with ReLU for contrast
    (left), and their difference (right). Returns the figure."""
    import matplotlib.pyplot as plt

    x, exact, tanh = (torch.as_tensor(v).detach().double().cpu() for v in (x, exact, tanh))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    left.plot(x, x.clamp(min=0), color="0.7", lw=1, label="ReLU")
    left.plot(x, exact, label="GELU, exact (erf)")
    left.plot(x, tanh, "--", label="GELU, tanh approximation")
    left.set(xlim=(-4, 4), ylim=(-0.5, 4), xlabel="x", ylabel="activation", title="activations")
    left.legend(fontsize=9)
    right.plot(x, exact - tanh)
    right.set(xlabel="x", ylabel="exact − tanh", title="exact − tanh approximation")
    right.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))
    return fig


def is_punctuation(token: str) -> bool:
    """True for a token made only of punctuation characters (Unicode category P*), such as "." or ","."""
    return bool(token) and token not in SPECIALS and all(unicodedata.category(c).startswith("P") for c in token)


def attention_shares(probs, tokens: Sequence[str], token_type_ids: Sequence[int], *, neighbours: bool = False):
    """Where attention goes, by kind of key, averaged over the query tokens: a pandas table with one row
    per entry of `probs`' first dimension. `probs` is (L, nh, T, T) (rows: layers, heads averaged) or
    (nh, T, T) (rows: heads). Columns: [CLS], [SEP], punctuation, itself (a word's own position), own
    segment and other segment (the other words); these six sum to 1. `neighbours=True` adds the share on
    the previous and the next token (overlapping the six)."""
    import pandas as pd

    probs = torch.as_tensor(probs).detach().double().cpu()
    T = len(tokens)
    if probs.ndim not in (3, 4) or probs.shape[-2:] != (T, T):
        raise ValueError(f"expected (L, nh, T, T) or (nh, T, T) probabilities with T = {T}, "
                         f"got shape {tuple(probs.shape)}")
    cls = torch.tensor([t == "[CLS]" for t in tokens])  # (T,) each: which keys are of each kind
    sep = torch.tensor([t == "[SEP]" for t in tokens])
    punct = torch.tensor([is_punctuation(t) for t in tokens])
    word = ~(cls | sep | punct)
    segment = torch.as_tensor(list(token_type_ids))
    same = segment[:, None] == segment[None, :]  # (T, T): query and key in the same segment
    eye = torch.eye(T, dtype=torch.bool)
    kinds = {"[CLS]": cls.expand(T, T), "[SEP]": sep.expand(T, T), "punctuation": punct.expand(T, T),
             "itself": word & eye, "own segment": word & same & ~eye, "other segment": word & ~same}
    if neighbours:
        kinds["previous token"] = torch.diag(torch.ones(T - 1, dtype=torch.bool), -1)  # key q − 1 of query q
        kinds["next token"] = torch.diag(torch.ones(T - 1, dtype=torch.bool), 1)  # key q + 1
    table = {k: (probs * m).sum(-1).mean(-1) for k, m in kinds.items()}  # (L, nh) or (nh,)
    if probs.ndim == 4:
        table = {k: v.mean(-1) for k, v in table.items()}  # mean over heads
    df = pd.DataFrame({k: v.numpy() for k, v in table.items()})
    df.index.name = "layer" if probs.ndim == 4 else "head"
    return df
