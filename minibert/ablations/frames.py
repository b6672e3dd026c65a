"""Chapter 09's tables as pandas frames, from a stored results document (`read_table("5")`) and
the table's description (`TABLES["5"]`). Accuracy and F1 are ×100 ("points"), as the paper prints them.

    cell_frame(doc)              one row per stored (row, seed, column)
    table_frame(doc, table)      per row × column: seeds, mean, sd of ours beside the paper's value(s)
    side_by_side(frame)          the same, one line per row
    controls_frame(docs, tables) per column: the reference row against its positive control (random init)
    effects_frame(docs, tables)  each effect the paper states (claims.EFFECTS): its Δ, ours with an
                                 interval (minibert.stats: paired where both rows fine-tune one
                                 pre-trained model, Welch otherwise), a verdict
    provenance_frame(docs)       how each table was made

`minibert.viz.ablations` draws them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..stats import difference_ci, mean_sd, paired_difference_ci
from .claims import EFFECTS, PAPER_NAMES, Effect, short
from .tables import CONTROL

# Only "agrees" is drawn as agreement: an interval that spans 0 is noise whichever side its middle is on.
VERDICTS = ("agrees", "same sign, inconclusive", "opposite sign, inconclusive", "disagrees",
            "no signal: the control does not separate", "no difference: equal scores", "no interval: fewer than 2 seeds")


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
            rows.append({"row": row.name, "column": measure.name, "metric": measure.metric,
                         "applies": measure in row.measures(table), "n": len(v),
                         **dict(zip(("mean", "sd"), mean_sd(v) if len(v) else (math.nan, math.nan))),
                         "paper": paper})
    return pd.DataFrame(rows).set_index(["row", "column"])


def side_by_side(frame, digits: int = 1):
    """`table_frame` as one line per row: for each column, ours as "mean ± sd (n)" and the paper's values."""
    import pandas as pd

    def ours(r):
        sd = "" if math.isnan(r["sd"]) else f" ± {r['sd']:.{digits}f}"
        if not r["applies"]:  # a control has no pre-trained model to score held out
            return "—"
        return "no cells yet" if r["n"] == 0 else f"{r['mean']:.{digits}f}{sd} ({r['n']})"

    out = {}
    for (row, column), r in frame.iterrows():
        out.setdefault(row, {})[(column, "ours")] = ours(r)
        out[row][(column, "paper")] = " · ".join(f"{k} {v:g}" for k, v in r["paper"].items()) or "—"
    return pd.DataFrame.from_dict(out, orient="index").rename_axis("row")


def _scores(cells, row: str, column: str) -> dict[int, float]:
    """{seed: score} of one row in one column."""
    picked = cells[(cells.row == row) & (cells.column == column)]
    return dict(zip(picked.seed, picked.score))


def shares_model(table, a: str, b: str) -> bool:
    """Whether rows a and b fine-tune one pre-trained model at each seed (Table 5's BiLSTM on the LTR
    model): then that model's luck is common to both, and their difference is read paired."""
    rows = {r.name: r for r in table.rows}
    return table.pretrained and rows[a].pretrain == rows[b].pretrain and not (rows[a].control or rows[b].control)


def difference(table, cells, a: str, b: str, column: str, confidence: float = 0.95):
    """mean(a) − mean(b) in `column`, its interval (None under 2 seeds a side) and how it was read."""
    sa, sb = _scores(cells, a, column), _scores(cells, b, column)
    if shares_model(table, a, b):
        seeds = sorted(set(sa) & set(sb))
        x, y = [sa[s] for s in seeds], [sb[s] for s in seeds]
        ci = paired_difference_ci(x, y, confidence) if len(seeds) >= 2 else None
        how = "paired"
    else:
        x, y = list(sa.values()), list(sb.values())
        ci = difference_ci(x, y, confidence) if min(len(x), len(y)) >= 2 else None
        how = "Welch"
    d = ci.difference if ci else (float(np.mean(x) - np.mean(y)) if x and y else math.nan)
    return d, ci, how, f"{len(x)} & {len(y)}"


def control_reference(table) -> str | None:
    """The row a table's control is the twin of: the same model, fine-tuned from its pre-trained weights."""
    control = next((r for r in table.rows if r.control), None)
    if control is None:
        return None
    return next(r.name for r in table.rows
                if not r.control and r.pretrain == control.pretrain and not r.combination and not r.finetune)


def controls_frame(docs: dict, tables: dict, confidence: float = 0.95):
    """One row per (table, column) with a control: the reference row − its random-init control, with a
    Welch interval, and whether it separates (an interval above 0). A column that does not separate
    shows no pre-training at all, so no row of it can show one pre-training choice against another."""
    import pandas as pd

    rows = []
    for t, doc in docs.items():
        table, cells = tables[t], cell_frame(doc)
        reference = control_reference(table)
        for measure in table.measures if reference else ():
            if measure.kind == "heldout":
                continue
            d, ci, _, seeds = difference(table, cells, reference, CONTROL, measure.name, confidence)
            rows.append({"table": t, "column": measure.name, "reference": short(reference), "Δ": d,
                         "low": ci.low if ci else math.nan, "high": ci.high if ci else math.nan, "seeds": seeds,
                         "separates": None if ci is None else bool(ci.low > 0)})
    return pd.DataFrame(rows, columns=["table", "column", "reference", "Δ", "low", "high", "seeds", "separates"])


def verdict(d: float, ci, paper: float, separates: bool | None) -> str:
    """One of VERDICTS: only an interval that excludes 0 agrees or disagrees."""
    if ci is None:
        return "no interval: fewer than 2 seeds"
    if separates is False:
        return "no signal: the control does not separate"
    if d == 0 and ci.low == ci.high:
        return "no difference: equal scores"
    same = bool(np.sign(d) == np.sign(paper))
    if ci.low > 0 or ci.high < 0:
        return "agrees" if same else "disagrees"
    return "same sign, inconclusive" if same else "opposite sign, inconclusive"


def effects_frame(docs: dict, tables: dict, effects: Sequence[Effect] = EFFECTS, confidence: float = 0.95):
    """One row per effect: the paper's Δ in each column ours stands for (and their mean), ours with its
    interval (paired or Welch: `how`), whether the signs agree, whether the column's control separates
    (None: no control measured) and the verdict. `docs`, `tables`: {"5": ...}."""
    import pandas as pd

    controls = controls_frame(docs, tables, confidence)
    separates = {(r.table, r.column): r.separates for r in controls.itertuples()}
    frames = {t: cell_frame(doc) for t, doc in docs.items()}  # once per table, not once per effect
    rows = []
    for e in effects:
        table, cells, paper_rows = tables[e.table], frames[e.table], {r.name: r.paper for r in tables[e.table].rows}
        deltas = {PAPER_NAMES.get(k, k): paper_rows[e.variant][k] - paper_rows[e.reference][k]
                  for k in table.paper_columns.get(e.column, ())}
        paper = float(np.mean(list(deltas.values()))) if deltas else math.nan
        d, ci, how, seeds = difference(table, cells, e.variant, e.reference, e.column, confidence)
        control = separates.get((e.table, e.column))
        rows.append({"table": e.table, "effect": f"{short(e.variant)} − {short(e.reference)}", "column": e.column,
                     "paper Δ": paper, "paper Δ by column": deltas, "ours Δ": d,
                     "low": ci.low if ci else math.nan, "high": ci.high if ci else math.nan, "how": how,
                     "seeds": seeds, "same sign": bool(np.sign(d) == np.sign(paper)) if not math.isnan(d) else None,
                     "control separates": control, "verdict": verdict(d, ci, paper, control), "claim": e.claim})
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
