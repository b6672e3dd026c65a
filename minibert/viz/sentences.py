"""Pictures of chapter 07 (fine-tuning for sentences and pairs, §4.1, Figure 4a and 4b): the
classification head on a tiny example, seeds as points with their mean ± sd, dev curves per seed,
A.3's grid as a heatmap, a confusion matrix, a pair's token types, and attention from [CLS]."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .diagrams import segment_colours, token_row

SETTING = re.compile(r"(\w+)=(\d+(?:\.\d*)?(?:e-?\d+)?)")  # one "name=number" of "batch_size=16,lr=5e-05,epochs=2"


def head_steps(hidden, pooled, logits, *, tokens: Sequence[str], labels: Sequence[str]):
    """The head of Figure 4b in three panels: every token's final hidden vector (T, H) with [CLS]'s
    row framed, the pooled C = tanh(W_p h_[CLS] + b_p) (H,), and the K logits W C + b. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    hidden, pooled, logits = (np.asarray(x, dtype=float) for x in (hidden, pooled, logits))
    T, H = hidden.shape
    fig, axes = plt.subplots(1, 3, figsize=(11, 2.8), layout="constrained", width_ratios=[H, H, 3])
    limit = max(np.abs(hidden).max(), 1.0)
    panels = [(hidden, tokens, "final hidden states T_i (T × H)"), (pooled[None], ["C"], "pooled: tanh(W_p h_[CLS] + b_p)")]
    for ax, (values, rows, title) in zip(axes[:2], panels):
        image = ax.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
        for (i, j), v in np.ndenumerate(values):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
        ax.set_yticks(range(len(rows)), rows, family="monospace")
        ax.set_xticks(range(H), [str(h) for h in range(H)], fontsize=8)
        ax.set(xlabel="hidden unit", title=title)
    axes[0].add_patch(Rectangle((-0.5, -0.5), H, 1, fill=False, ec="black", lw=2))
    fig.colorbar(image, ax=axes[:2], label="value", shrink=0.8)
    axes[2].barh(range(len(labels)), logits, color=["#c0504d" if v < 0 else "#4f81bd" for v in logits])
    axes[2].set_yticks(range(len(labels)), labels)
    axes[2].axvline(0, color="0.4", lw=0.8)
    axes[2].set(xlabel="logit", title="W C + b (K logits)")
    return fig


def seed_strip(rows: dict[str, Sequence[float]], *, baseline: float | None = None, baseline_label: str = "majority class",
               xlabel: str = "dev accuracy", title: str = ""):
    """One row per setting: each seed a dot, the mean a bar with ± one sample sd; a dashed line at
    `baseline`. Returns the axes."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 0.6 * len(rows) + 1.4), layout="constrained")
    for y, (name, values) in enumerate(rows.items()):
        values = np.asarray(values, dtype=float)
        sd = values.std(ddof=1) if len(values) > 1 else 0.0
        jitter = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else np.zeros(1)
        ax.scatter(values, y + jitter, s=22, color="0.45", zorder=3, label="one seed" if y == 0 else None)
        ax.errorbar(values.mean(), y, xerr=sd, fmt="D", color="#c0504d", capsize=4, zorder=4,
                    label="mean ± sd" if y == 0 else None)
    if baseline is not None:
        ax.axvline(baseline, ls="--", color="0.5", lw=1, label=f"{baseline_label} ({baseline:.3f})")
    ax.set_yticks(range(len(rows)), list(rows))
    ax.invert_yaxis()
    ax.set(xlabel=xlabel, title=title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return ax


def dev_curves(panels: dict[str, list[list[dict]]], *, metric: str = "accuracy", baseline: float | None = None,
               size: tuple[float, float] = (3.6, 3.0)):
    """One panel per entry ({title: one `history` per seed}), the dev metric after each epoch, a line
    per seed; a dashed line at `baseline`. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(size[0] * len(panels), size[1]), squeeze=False,
                             sharey=True, layout="constrained")
    for ax, (title, histories) in zip(axes[0], panels.items()):
        for seed, history in enumerate(histories):
            ax.plot([h["epoch"] for h in history], [h[metric] for h in history], marker="o", lw=1, label=f"seed {seed}")
        if baseline is not None:
            ax.axhline(baseline, ls="--", color="0.5", lw=1)
        ax.set_xticks(sorted({h["epoch"] for hs in histories for h in hs}))
        ax.set(xlabel="epoch", title=title)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"dev {metric}")
    axes[0][0].legend(fontsize=7)
    return fig


def parse_setting(name: str) -> dict:
    """"batch_size=16,lr=5e-05,epochs=2" -> {"batch_size": 16, "lr": 5e-05, "epochs": 2}."""
    parts = [SETTING.fullmatch(part) for part in name.split(",")]
    if not all(parts):
        raise ValueError(f"{name!r} is not a grid setting such as 'batch_size=16,lr=5e-05,epochs=2'")
    return {m[1]: (int(m[2]) if m[2].isdigit() else float(m[2])) for m in parts}


def grid_frame(summary: list[dict]):
    """`minibert.finetune.sweep.summary` rows of a grid -> a DataFrame, one row per setting: its
    fields, mean, sd, min and max over the seeds, in the grid's order (batch, lr down, epochs up)."""
    import pandas as pd

    rows = [{**parse_setting(r["setting"]), "seeds": len(r["values"]), "mean": r["mean"], "sd": r["sd"],
             "min": min(r["values"]), "max": max(r["values"])} for r in summary]
    frame = pd.DataFrame(rows)
    return frame.sort_values(["batch_size", "lr", "epochs"], ascending=[True, False, True]).reset_index(drop=True)


def grid_heatmap(frame, *, value: str = "mean", title: str = "", fmt: str = "{:.3f}", mark=None):
    """A.3's grid as a heatmap: rows (batch size, learning rate), columns epochs, each cell the
    `value` column of `grid_frame`; `mark` = (batch_size, lr, epochs) is framed. Returns the axes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    table = frame.pivot_table(index=["batch_size", "lr"], columns="epochs", values=value).sort_index(
        level=["batch_size", "lr"], ascending=[True, False])
    fig, ax = plt.subplots(figsize=(5.2, 0.45 * len(table) + 1.5), layout="constrained")
    image = ax.imshow(table.values, cmap="viridis", aspect="auto")
    lo, hi = np.nanmin(table.values), np.nanmax(table.values)
    for (i, j), v in np.ndenumerate(table.values):
        ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=8,
                color="white" if (v - lo) / ((hi - lo) or 1) < 0.55 else "black")
    ax.set_xticks(range(table.shape[1]), [str(c) for c in table.columns])
    ax.set_yticks(range(len(table)), [f"batch {b}, lr {lr:g}" for b, lr in table.index])
    if mark is not None:
        i, j = list(table.index).index((mark[0], mark[1])), list(table.columns).index(mark[2])
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=2.5))
    ax.set(xlabel="epochs", title=title)
    fig.colorbar(image, ax=ax, label=f"dev accuracy ({value} over seeds)")
    return ax


def confusion_figure(matrix, labels: Sequence[str], *, title: str = ""):
    """A K × K confusion matrix, true class down, predicted across, each cell its count and the
    share of its row. Returns the axes."""
    import matplotlib.pyplot as plt

    m = np.asarray(matrix)
    fig, ax = plt.subplots(figsize=(4.2, 3.6), layout="constrained")
    image = ax.imshow(m, cmap="Blues")
    for (i, j), v in np.ndenumerate(m):
        share = v / max(m[i].sum(), 1)
        ax.text(j, i, f"{v}\n({share:.0%})", ha="center", va="center", fontsize=9,
                color="white" if v > m.max() / 2 else "black")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_yticks(range(len(labels)), labels)
    ax.set(xlabel="predicted", ylabel="true", title=title)
    fig.colorbar(image, ax=ax, label="examples")
    return ax


def pair_rows(examples: dict[str, tuple[Sequence[str], Sequence[int]]], *, title: str = ""):
    """Each encoded pair as a row of tokens coloured by segment (A, B, special), its token type
    under each. `examples`: {label: (tokens, token_type_ids)}. Returns the figure."""
    import matplotlib.pyplot as plt

    width = max(sum(len(t) + 1.8 for t in tokens) for tokens, _ in examples.values())
    fig, ax = plt.subplots(figsize=(min(0.105 * width + 1.5, 16), 0.95 * len(examples) + 0.5), layout="constrained")
    for row, (label, (tokens, types)) in enumerate(examples.items()):
        y = -1.3 * row
        ax.text(-0.5, y, label, ha="right", va="center", fontsize=9)
        token_row(ax, tokens, y, colours=segment_colours(tokens, types), below=[str(t) for t in types], fontsize=8)
    ax.set(xlim=(-0.5 - 0.12 * max(len(k) for k in examples) * 9, width), ylim=(-1.3 * len(examples) + 0.5, 0.6))
    ax.axis("off")
    ax.set_title(title + "  (number under each token: its token type)", fontsize=10)
    return fig


def cls_attention(rows: dict[str, tuple[Sequence[str], Sequence[float]]], *, ylabel: str = "attention from [CLS]"):
    """One panel per example ({title: (tokens, weights)}): how much [CLS] attends to each token in
    one layer (averaged over heads), as bars. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(rows), 1, figsize=(9, 2.3 * len(rows)), squeeze=False, layout="constrained")
    for ax, (title, (tokens, weights)) in zip(axes[:, 0], rows.items()):
        weights = np.asarray(weights, dtype=float)
        colours = ["0.7" if t in ("[CLS]", "[SEP]") else "#4f81bd" for t in tokens]
        ax.bar(range(len(tokens)), weights, color=colours)
        ax.set_xticks(range(len(tokens)), tokens, rotation=60, ha="right", fontsize=8, family="monospace")
        ax.set(ylabel=ylabel, title=title)
        ax.grid(axis="y", alpha=0.3)
    return fig
