"""Chapter 09's tables as pandas frames, from a stored results document (`read_table("5")`) and
the table's description (`TABLES["5"]`). Accuracy and F1 are ×100 ("points"), as the paper prints them.

    cell_frame(doc)              one row per stored (row, seed, column)
    table_frame(doc, table)      per row × column: seeds, mean, sd of ours beside the paper's value(s)
    side_by_side(frame)          the same, one line per row
    effects_frame(docs, tables)  each effect the paper states (claims.EFFECTS): its Δ, ours with a Welch
                                 interval (minibert.stats), a verdict
    provenance_frame(docs)       how each table was made

`minibert.viz.ablations` draws them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..stats import difference_ci, mean_sd
from .claims import EFFECTS, PAPER_NAMES, Effect, short


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
                         **dict(zip(("mean", "sd"), mean_sd(v) if len(v) else (math.nan, math.nan))),
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
