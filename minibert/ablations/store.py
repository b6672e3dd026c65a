"""The results of a table, one file each (`results/ablations/table-5.json`), written after every
cell, with what is needed to trust and redo them: the command, the budget, the seeds, the sha256 of
the corpus and task data, the versions, the machine, and the seconds each cell took.

A cell is written whole or not at all (a temporary file, then a rename), under a lock, so two
workers may fill one table and a killed run loses at most the cell it was in.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import platform
import statistics
from pathlib import Path

import torch

from ..hub import sha256_of
from ..repository import RESULTS as REPOSITORY_RESULTS
from ..repository import code_version
from ..tasks.catalog import DATA_DIR
from .budget import Budget
from .tables import TABLES, Table

RESULTS = REPOSITORY_RESULTS / "ablations"


class ResultsError(ValueError):
    """A results file that does not belong to the run asked for, or is missing."""


def results_file(table: str, folder: Path | str = RESULTS) -> Path:
    return Path(folder) / f"table-{table}.json"


def provenance(table: Table, budget: Budget, command: str) -> dict:
    tasks = sorted({m.task for m in table.measures if m.task})
    data = {f"{t}/{split}.jsonl": sha256_of(DATA_DIR / t / f"{split}.jsonl") for t in tasks for split in ("train", "dev")
            if (DATA_DIR / t / f"{split}.jsonl").is_file()}
    if table.pretrained and Path(budget.train_corpus).is_file():
        data["corpus"] = sha256_of(Path(budget.train_corpus))
    import transformers  # only for its version: the oracle the model is tested against

    return {"table": table.number, "title": table.title, "command": command, "budget": budget.to_dict(),
            "seeds": list(budget.seeds), "rows": [r.name for r in table.rows],
            "columns": {m.name: m.metric for m in table.measures}, "data_sha256": data,
            "device": f"{platform.machine()}, {torch.get_num_threads()} CPU threads" if not torch.cuda.is_available()
            else torch.cuda.get_device_name(),
            "python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
            **code_version()}


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def read_table(number: str, folder: Path | str = RESULTS) -> dict:
    """A table's stored results: provenance, budget, and `cells` (row, seed, scores, metrics, seconds)."""
    path = results_file(number, folder)
    if not path.is_file():
        raise ResultsError(f"no stored results for Table {number} at {path}; make them with "
                           f"`python -m minibert.ablations {number}` (results/README.md)")
    return read(path)


def read(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def budget_differences(stored: dict, budget: Budget) -> dict:
    """{field: (stored, now)} where a stored budget differs from `budget`. A field added to Budget
    since the file was written counts as its default (what the file's run did)."""
    now, defaults = budget.to_dict(), Budget(budget.name).to_dict()
    stored = {**{k: defaults[k] for k in now if k not in stored}, **stored}
    return {k: (v, now.get(k)) for k, v in stored.items() if now.get(k) != v}


def check_budget(path: Path, budget: Budget) -> None:
    """Refuse to add cells made under another budget to a file (its cells would not compare)."""
    doc = read(path)
    if doc is not None and (differ := budget_differences(doc["budget"], budget)):
        raise ResultsError(f"{path} holds cells of another budget ("
                           + ", ".join(f"{k}: {a!r} there, {b!r} now" for k, (a, b) in differ.items())
                           + "); give another --results folder, or delete the file to start it again")


def add_cell(path: Path, head: dict, cell: dict) -> dict:
    """Add one finished cell (replacing a cell of the same row and seed) and return the document. The
    cell records the code it was made with (`commit`, `clean`): a file's cells may span commits."""
    cell = {**cell, "commit": head.get("commit"), "clean": head.get("clean")}
    with _locked(path):
        doc = read(path) or {**head, "started": _now(), "cells": []}
        doc.update({k: head[k] for k in ("title", "rows", "columns", "seeds")})  # the table as it is now
        doc["cells"] = [c for c in doc["cells"] if (c["row"], c["seed"]) != (cell["row"], cell["seed"])] + [cell]
        for key in ("command", "device"):  # every command and machine that wrote cells, the first as `command`
            seen = doc.setdefault(key + "s", [doc[key]])
            seen += [head[key]] if head[key] not in seen else []
        doc.update(updated=_now(), cpu_seconds=round(cpu_seconds(doc["cells"]), 1))
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
    return doc


def cpu_seconds(cells: list[dict]) -> float:
    """What the cells cost: every column's seconds, and each pre-trained variant once (a variant
    that several rows share records its training seconds in each)."""
    columns = sum(v for c in cells for k, v in c["seconds"].items() if k not in ("pretrain", "total"))
    variants = {(c["pretrain"]["variant"], c["seed"]): c["pretrain"].get("seconds", 0.0) for c in cells if "pretrain" in c}
    return columns + sum(variants.values())


def done(path: Path) -> set[tuple[str, int]]:
    doc = read(path)
    return {(c["row"], c["seed"]) for c in doc["cells"]} if doc else set()


def progress(tables: list[str], budget: Budget, folder: Path | str = RESULTS) -> str:
    """How much of each table is filled: "Table 5 (Pre-training tasks): 7 of 12 cells (rows × seeds)"."""
    lines = []
    for number in tables:
        table, path = TABLES[number], results_file(number, folder)
        want = {(r.name, s) for r in table.rows for s in budget.seeds}
        have = done(path) & want
        lines.append(f"Table {number} ({table.title}): {len(have)} of {len(want)} cells"
                     + (f"; missing {len(want - have)}" if want - have else "; complete") + f" [{path}]")
    return "\n".join(lines)


def summary(number: str, folder: Path | str = RESULTS) -> str:
    """A Markdown table of what is stored: per row, each column's mean ± sd over the seeds (and how
    many), beside the paper's number(s) for the column it stands in for."""
    table, doc = TABLES[number], read_table(number, folder)
    measures = [m.name for m in table.measures]
    head = ["row"] + [f"{m} (paper: {', '.join(table.paper_columns.get(m, ())) or '-'})" for m in measures]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(measures)]
    for row in table.rows:
        cells = [c for c in doc["cells"] if c["row"] == row.name]
        out = [row.name]
        for m in table.measures:
            values = [c["scores"][m.name] for c in cells if m.name in c["scores"]]  # a control: no held-out
            scale = 1 if m.metric == "perplexity" else 100
            ours = (f"{statistics.fmean(values) * scale:.1f} ± {statistics.stdev(values) * scale:.1f} (n={len(values)})"
                    if len(values) > 1 else f"{values[0] * scale:.1f} (n=1)" if values else "-")
            theirs = " / ".join(f"{row.paper[k]:g}" for k in table.paper_columns.get(m.name, ()) if row.paper.get(k) is not None)
            out.append(f"{ours} [{theirs or '-'}]")
        lines.append("| " + " | ".join(out) + " |")
    return "\n".join(lines)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
