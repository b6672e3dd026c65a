"""Chapter 09's tables, statistics and pictures: the paper's ablations (Tables 5-8) in miniature.

Functions take a stored results document (`minibert.ablations.read_table("5")`) and the table's
description (`minibert.ablations.TABLES["5"]`: rows with the paper's numbers, columns, `paper_columns`)
as arguments: viz never imports the command. Accuracy and F1 are ×100 ("points"), as the paper prints them.

    table_frame(doc, table)      per row × column: seeds, mean, sd of ours beside the paper's value(s)
    difference_ci(a, b)          mean(a) − mean(b) with a Welch t interval (minibert.stats; exercise 9.2's reference)
    effects_frame(docs, tables)  each effect the paper states (EFFECTS): its Δ, ours with a CI, a verdict
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..heads.bilstm import COMBINATIONS, chosen_layers
from ..stats import difference_ci
from .masking import masking_view

PAPER_NAMES = {"mnli_m": "MNLI-m", "qnli": "QNLI", "mrpc": "MRPC", "sst_2": "SST-2", "squad_f1": "SQuAD F1",
               "lm_ppl": "LM ppl", "dev_f1": "CoNLL dev F1", "mnli_fine_tune": "MNLI", "ner_fine_tune": "NER",
               "ner_feature_based": "NER feature-based"}
VERDICT_COLOURS = {"agrees": "#2e7d32", "agrees, CI spans 0": "#9ccc65", "opposite, CI spans 0": "#ffb74d",
                   "opposite": "#c62828", "no difference: equal scores": "#90a4ae", "no CI: fewer than 2 seeds": "0.6"}


class Effect(NamedTuple):
    """One effect the paper states: Δ = mean(variant) − mean(reference) in one of our columns."""
    table: str
    variant: str
    reference: str
    column: str
    claim: str  # the paper's words


_BERT, _LTR, _MIX = "BERT (MLM + NSP)", "LTR & No NSP", "MASK 80% · SAME 10% · RND 10%"
_L = ["L=1, H=128, A=2", "L=2, H=128, A=2", "L=4, H=128, A=2"]
EFFECTS = [  # the paper's words (§5.1-5.3, C.2), or its Table 7's numbers where its prose says nothing
    *(Effect("5", "No NSP", _BERT, c, "§5.1: removing NSP hurts performance significantly on QNLI, MNLI, and SQuAD")
      for c in ("next-sentence", "names")),
    *(Effect("5", _LTR, "No NSP", c, "§5.1: the LTR model performs worse than the MLM model on all tasks")
      for c in ("next-sentence", "sentiment", "names")),
    Effect("5", "+ BiLSTM", _LTR, "names", "§5.1: this does significantly improve results on SQuAD"),
    *(Effect("5", "+ BiLSTM", _LTR, c, "§5.1: the BiLSTM hurts performance on the GLUE tasks")
      for c in ("next-sentence", "sentiment")),
    *(Effect("6", big, small, c, "§5.2: larger models lead to a strict accuracy improvement (Table 6: and a lower LM ppl)")
      for small, big in zip(_L, _L[1:]) for c in ("held-out perplexity", "next-sentence", "sentiment")),
    *(Effect("7", a, b, "names", claim) for a, b, claim in (
        ("Concat Last Four Hidden", "Fine-tuning", "§5.3: only 0.3 F1 behind fine-tuning the entire model"),
        ("Concat Last Four Hidden", "Last Hidden", "§5.3: the best performing method concatenates the top four"),
        ("Embeddings", "Last Hidden", "Table 7: the embeddings alone are the weakest features"),
        ("Second-to-Last Hidden", "Last Hidden", "Table 7: the second-to-last layer is better than the last"))),
    Effect("8", "MASK 100% · SAME 0% · RND 0%", _MIX, "names (feature-based)",
           "C.2: using only the MASK strategy was problematic when applying the feature-based approach to NER"),
    *(Effect("8", "MASK 0% · SAME 0% · RND 100%", _MIX, c, "C.2: using only the RND strategy performs much worse")
      for c in ("next-sentence", "names", "names (feature-based)")),
]


def short(row: str) -> str:
    """A row's name short enough for a label: "MASK 80% · SAME 10% · RND 10%" -> "mix 80/10/10"."""
    if row.startswith("MASK"):
        return "mix " + "/".join(part.split()[1].rstrip("%") for part in row.split(" · "))
    return "BERT" if row == _BERT else row.split(",")[0].replace(" Hidden", "")


def scale(metric: str) -> float:
    """100 for a proportion (accuracy, F1: shown in points, as the paper prints them), 1 for perplexity."""
    return 1.0 if "perplexity" in metric or "ppl" in metric else 100.0


def cell_frame(doc: dict):
    """One row per stored (row, seed, column): its score in our units (points or perplexity)."""
    import pandas as pd

    return pd.DataFrame([{"row": c["row"], "seed": c["seed"], "column": col,
                          "score": value * scale(doc["columns"].get(col, col))}  # a column added later: its name
                         for c in doc["cells"] for col, value in c["scores"].items()],
                        columns=["row", "seed", "column", "score"])


def table_frame(doc: dict, table):
    """Per row × column of `table` (in its order): n seeds, mean and sd (sample; NaN for one seed) of
    ours, and the paper's value(s) of the column(s) ours stands in for (`paper`: {name: value})."""
    import pandas as pd

    cells = cell_frame(doc)
    rows = []
    for row in table.rows:
        for measure in table.measures:
            v = cells[(cells.row == row.name) & (cells.column == measure.name)].score.to_numpy()
            paper = {PAPER_NAMES.get(k, k): row.paper[k] for k in table.paper_columns.get(measure.name, ())
                     if row.paper.get(k) is not None}
            rows.append({"row": row.name, "column": measure.name, "metric": measure.metric, "n": len(v),
                         "mean": v.mean() if len(v) else math.nan, "sd": v.std(ddof=1) if len(v) > 1 else math.nan,
                         "paper": paper})
    return pd.DataFrame(rows).set_index(["row", "column"])


def side_by_side(frame, digits: int = 1):
    """`table_frame` as one line per row: for each column, ours as "mean ± sd (n)" and the paper's values."""
    import pandas as pd

    def ours(r):
        sd = "" if math.isnan(r["sd"]) else f" ± {r['sd']:.{digits}f}"
        return "no cells yet" if r["n"] == 0 else f"{r['mean']:.{digits}f}{sd} ({r['n']})"

    out = {}
    for (row, column), r in frame.iterrows():
        out.setdefault(row, {})[(column, "ours")] = ours(r)
        out[row][(column, "paper")] = " · ".join(f"{k} {v:g}" for k, v in r["paper"].items()) or "—"
    return pd.DataFrame.from_dict(out, orient="index").rename_axis("row")


def effects_frame(docs: dict, tables: dict, effects: Sequence[Effect] = EFFECTS, confidence: float = 0.95):
    """One row per effect: the paper's Δ in each column ours stands for (and their mean), ours with its
    Welch interval, whether the signs agree and the verdict. `docs`, `tables`: {"5": ...}."""
    import pandas as pd

    rows = []
    for e in effects:
        table, cells, paper_rows = tables[e.table], cell_frame(docs[e.table]), {r.name: r.paper for r in tables[e.table].rows}
        deltas = {PAPER_NAMES.get(k, k): paper_rows[e.variant][k] - paper_rows[e.reference][k]
                  for k in table.paper_columns.get(e.column, ())}
        paper = float(np.mean(list(deltas.values()))) if deltas else math.nan
        ours = [cells[(cells.row == r) & (cells.column == e.column)].score.to_numpy() for r in (e.variant, e.reference)]
        ci = difference_ci(*ours, confidence) if min(map(len, ours)) >= 2 else None
        d = ci.difference if ci else (ours[0].mean() - ours[1].mean() if min(map(len, ours)) else math.nan)
        agree = bool(np.sign(d) == np.sign(paper)) if not math.isnan(d) else None
        excludes = ci is not None and (ci.low > 0 or ci.high < 0)
        verdict = ("no CI: fewer than 2 seeds" if ci is None else "no difference: equal scores" if d == 0 else
                   ("agrees" if excludes else "agrees, CI spans 0") if agree else
                   ("opposite" if excludes else "opposite, CI spans 0"))
        rows.append({"table": e.table, "effect": f"{short(e.variant)} − {short(e.reference)}", "column": e.column,
                     "paper Δ": paper, "paper Δ by column": deltas, "ours Δ": d,
                     "low": ci.low if ci else math.nan, "high": ci.high if ci else math.nan,
                     "seeds": f"{len(ours[0])} & {len(ours[1])}", "same sign": agree, "verdict": verdict,
                     "claim": e.claim})
    return pd.DataFrame(rows)


def provenance_frame(docs: dict):
    """One row per table: how its results were made (every command, dates, device, CPU hours, cells, data hash)."""
    import pandas as pd

    return pd.DataFrame({f"Table {t}": {
        "commands": " && ".join(doc.get("commands", [doc["command"]])), "started": doc["started"][:16].replace("T", " "),
        "updated": doc["updated"][:16].replace("T", " "), "device": doc["device"],
        "CPU hours": round(doc["cpu_seconds"] / 3600, 2), "cells": len(doc["cells"]),
        "seeds": ", ".join(map(str, sorted({c["seed"] for c in doc["cells"]}))),
        "data sha256": ", ".join(f"{k.split('/')[0]} {v[:8]}" for k, v in doc["data_sha256"].items()
                                 if not k.endswith("train.jsonl"))} for t, doc in docs.items()}).T


def table_figure(doc: dict, table, *, baselines: dict | None = None, title: str | None = None):
    """For each column of `table`: ours (every seed a dot, the mean ± sd a diamond, a dashed line at
    `baselines[column]` in points, e.g. the majority class) on the left, the paper's number(s) for the
    column(s) ours stands in for on the right, on their own axis (only directions compare). Returns the figure."""
    import matplotlib.pyplot as plt

    frame, cells, names = table_frame(doc, table), cell_frame(doc), [r.name for r in table.rows]
    fig, axes = plt.subplots(len(table.measures), 2, figsize=(11, (0.42 * len(names) + 0.9) * len(table.measures)),
                             squeeze=False, sharey=True, layout="constrained")
    for (ours_ax, paper_ax), m in zip(axes, table.measures):
        for y, name in enumerate(names):
            v, r = cells[(cells.row == name) & (cells.column == m.name)].score.to_numpy(), frame.loc[(name, m.name)]
            ours_ax.scatter(v, y + np.linspace(-0.12, 0.12, len(v)), s=20, color="0.45", zorder=3,
                            label="one seed" if y == 0 else None)
            if r["n"]:
                ours_ax.errorbar(r["mean"], y, xerr=np.nan_to_num(r["sd"]), fmt="D", color="#c0504d", capsize=4,
                                 zorder=4, label="mean ± sd" if y == 0 else None)
        if (baselines or {}).get(m.name) is not None:
            ours_ax.axvline(baselines[m.name], ls="--", color="0.5", lw=1, label=f"baseline ({baselines[m.name]:.1f})")
        ours_ax.set(xlabel=f"ours: {m.name}" + (f", {m.metric} (points)" if scale(m.metric) == 100 else ""),
                    yticks=range(len(names)), ylim=(len(names) - 0.5, -0.5))
        ours_ax.set_yticklabels(names, fontsize=8)
        columns = table.paper_columns.get(m.name, ())
        for col, marker in zip(columns, "os^v"):
            ys = [y for y, r in enumerate(table.rows) if r.paper.get(col) is not None]
            paper_ax.scatter([table.rows[y].paper[col] for y in ys], ys, marker=marker, s=30, zorder=3,
                             label=PAPER_NAMES.get(col, col))
        if not columns:
            paper_ax.text(0.5, 0.5, "the paper reports no such column", ha="center", va="center", transform=paper_ax.transAxes)
            paper_ax.set_xticks([])
        paper_ax.set_xlabel("paper: " + (", ".join(PAPER_NAMES.get(c, c) for c in columns) or "—"))
        for ax in (ours_ax, paper_ax) if columns else (ours_ax,):
            ax.legend(fontsize=7, loc="best"), ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title or f"Table {table.number}, {table.title}: ours (left) beside the paper's (right)", fontsize=11)
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
