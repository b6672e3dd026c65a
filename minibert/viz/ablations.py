"""Chapter 09's pictures of the paper's ablations (Tables 5-8) in miniature. Each takes the frames
`minibert.ablations.frames` makes from the stored results (viz never imports the command):

    table_figure(frame, cells)   ours per seed beside the paper's numbers, one panel per column
    effects_figure(effects)      a forest plot of every stated effect, coloured by its verdict
    combinations_figure(L)       what each of Table 7's feature-based ways reads
    mixes_figure(rows)           one sentence under several masking mixes (Table 8)
    budget_figure(ours, paper)   one variant's pre-training against BERT-BASE's
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..heads.bilstm import COMBINATIONS, chosen_layers
from .masking import masking_view

VERDICT_COLOURS = {"agrees": "#2e7d32", "same sign, inconclusive": "0.55", "opposite sign, inconclusive": "0.55",
                   "disagrees": "#c62828", "no signal: the control does not separate": "0.8",
                   "no difference: equal scores": "0.8", "no interval: fewer than 2 seeds": "0.8"}


def table_figure(frame, cells, *, baselines: dict | None = None, title: str = "ours (left) beside the paper's (right)"):
    """For each column of a `table_frame`: ours (every seed of `cells`, a `cell_frame`, a dot; the
    mean ± sd a diamond; a dashed line at `baselines[column]` in points, e.g. the majority class) on
    the left, the paper's number(s) for the column(s) ours stands in for on the right, on their own
    axis (only directions compare). Returns the figure."""
    import matplotlib.pyplot as plt

    names, measures = list(dict.fromkeys(frame.index.get_level_values("row"))), list(dict.fromkeys(
        frame.index.get_level_values("column")))
    fig, axes = plt.subplots(len(measures), 2, figsize=(11, (0.42 * len(names) + 0.9) * len(measures)),
                             squeeze=False, sharey=True, layout="constrained")
    for (ours_ax, paper_ax), column in zip(axes, measures):
        for y, name in enumerate(names):
            v, r = cells[(cells.row == name) & (cells.column == column)].score.to_numpy(), frame.loc[(name, column)]
            ours_ax.scatter(v, y + np.linspace(-0.12, 0.12, len(v)), s=20, color="0.45", zorder=3,
                            label="one seed" if y == 0 else None)
            if r["n"]:
                ours_ax.errorbar(r["mean"], y, xerr=np.nan_to_num(r["sd"]), fmt="D", color="#c0504d", capsize=4,
                                 zorder=4, label="mean ± sd" if y == 0 else None)
        if (baselines or {}).get(column) is not None:
            ours_ax.axvline(baselines[column], ls="--", color="0.5", lw=1, label=f"baseline ({baselines[column]:.1f})")
        metric = frame.loc[(names[0], column), "metric"]
        ours_ax.set(xlabel=f"ours: {column}" + ("" if "perplexity" in metric else f", {metric} (points)"),
                    yticks=range(len(names)), ylim=(len(names) - 0.5, -0.5))
        ours_ax.set_yticklabels(names, fontsize=8)
        papers = [frame.loc[(name, column), "paper"] for name in names]  # {the paper's column name: value}
        columns = list(dict.fromkeys(k for paper in papers for k in paper))
        for col, marker in zip(columns, "os^v"):
            ys = [y for y, paper in enumerate(papers) if col in paper]
            paper_ax.scatter([papers[y][col] for y in ys], ys, marker=marker, s=30, zorder=3, label=col)
        if not columns:
            paper_ax.text(0.5, 0.5, "the paper reports no such column", ha="center", va="center", transform=paper_ax.transAxes)
            paper_ax.set_xticks([])
        paper_ax.set_xlabel("paper: " + (", ".join(columns) or "—"))
        for ax in (ours_ax, paper_ax) if columns else (ours_ax,):
            ax.legend(fontsize=7, loc="best"), ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=11)
    return fig


def effects_figure(frame, *, title: str = "Each effect the paper states: our Δ with its interval"):
    """A forest plot of `effects_frame`: one line per effect, our Δ and its interval coloured by the
    verdict, the paper's Δ written at the right; perplexity effects in a panel of their own. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    groups = [(u, frame[frame.column.str.contains("perplexity") == (u == "perplexity")]) for u in ("points", "perplexity")]
    groups = [(u, g) for u, g in groups if len(g)]
    fig, axes = plt.subplots(len(groups), 1, figsize=(11, 0.34 * len(frame) + 1.6 * len(groups)), squeeze=False,
                             height_ratios=[len(g) + 1 for _, g in groups], layout="constrained")
    for ax, (unit, g) in zip(axes[:, 0], groups):
        for y, (_, r) in enumerate(g.iterrows()):
            colour = VERDICT_COLOURS[r["verdict"]]
            if not math.isnan(r["low"]):
                ax.plot([r["low"], r["high"]], [y, y], color=colour, lw=2.5)
            ax.plot(r["ours Δ"], y, "o", color=colour, mec="black", mew=0.5)
            ax.annotate(f"paper {r['paper Δ']:+.2f}", (1.0, y), xycoords=("axes fraction", "data"), xytext=(6, 0),
                        textcoords="offset points", va="center", fontsize=8)
        ax.axvline(0, color="0.3", lw=0.8)
        ax.set_yticks(range(len(g)), [f"T{r.table} {r.effect} · {r.column}" for r in g.itertuples()], fontsize=8)
        ax.set(ylim=(len(g) - 0.5, -0.5), xlabel=f"ours: Δ in {unit} (variant − reference), with its interval")
        ax.grid(axis="x", alpha=0.3)
    fig.legend(handles=[Patch(color=c, label=v) for v, c in VERDICT_COLOURS.items()], loc="outside lower center",
               ncol=6, fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=11)
    return fig


def combinations_figure(num_layers: int, combinations: Sequence[str] = tuple(COMBINATIONS)):
    """Which hidden states each of Table 7's combinations reads (rows), from the embeddings (0) to
    the last layer (L), and how it joins them; fine-tuning trains them all. Returns the axes."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.2 + 0.75 * (num_layers + 1) + 2.6, 0.42 * (len(combinations) + 1) + 1.0),
                           layout="constrained")
    grid = np.zeros((len(combinations) + 1, num_layers + 1))
    grid[0] = 2  # fine-tuning: every layer is trained, none is read alone
    for i, name in enumerate(combinations, 1):
        for j in chosen_layers(name, num_layers):
            grid[i, j] = 1
            ax.text(j, i, {"one": "read", "concat": "⧺", "weighted": "w"}[COMBINATIONS[name][1]], ha="center", va="center")
    ax.imshow(grid, cmap=plt.matplotlib.colors.ListedColormap(["white", "#4e79a7", "#f2c57c"]), vmin=0, vmax=2)
    ax.set_xticks(range(num_layers + 1), ["emb."] + [str(k) for k in range(1, num_layers + 1)])
    ax.set_yticks(range(len(combinations) + 1), ["fine-tuning (all trained)", *combinations], fontsize=9)
    ax.set_xticks(np.arange(-0.5, num_layers + 1), minor=True)
    ax.set_yticks(np.arange(-0.5, len(combinations) + 1), minor=True)
    ax.grid(which="minor", color="0.75")
    ax.set(xlabel="hidden state (0 = embeddings, k = after layer k)",
           title=f"What each way reads of a {num_layers}-layer BERT: ⧺ concatenated, w weighted sum")
    return ax


def mixes_figure(rows: dict, *, width: int = 112):
    """One sentence masked under several mixes, one row each: {label: (seen, kinds, originals)} as
    `masking_view` takes them. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(rows), 1, figsize=(width * 0.085, 1.2 * len(rows)), squeeze=False)
    for ax, (label, (seen, kinds, originals)) in zip(axes[:, 0], rows.items()):
        masking_view(seen, kinds, originals=originals, width=width, ax=ax)
        ax.set_title(label, fontsize=9, loc="left", pad=24, fontweight="bold")
    fig.subplots_adjust(hspace=1.4, left=0.01, right=0.99, top=0.92, bottom=0.02)
    return fig


def budget_figure(ours: dict, paper: dict, *, title: str = "One variant's pre-training: ours against BERT-BASE's"):
    """Bars on a log scale for each quantity ({"tokens": n, "training FLOPs": f, ...}), ours beside the
    paper's, with the ratio written above. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(ours), figsize=(3.2 * len(ours), 3.2), layout="constrained", squeeze=False)
    for ax, key in zip(axes[0], ours):
        ax.bar(["ours", "BERT-BASE"], [ours[key], paper[key]], color=["#c0504d", "#4f81bd"], log=True)
        ax.set_title(f"{key}\npaper / ours = {paper[key] / ours[key]:,.0f}", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=11)
    return fig
