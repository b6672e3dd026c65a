"""Fill tables cell by cell: `run_tables(["5", "8"], budget("short"))`.

Cells already in the results file are never redone; a killed run, started again with the same
command, continues with the first missing cell (and, inside it, from the last pre-training
checkpoint). A column added to a table after its cells were made is measured for them then, from
the models they left (nothing is pre-trained again). `worker=(k, n)` lets n processes share the work: the pre-training runs (and Table 7's
cells) are dealt out in turn, so no two workers ever train the same model.
"""

from __future__ import annotations

from pathlib import Path

from .budget import Budget
from .cells import run_cell, variant_name
from .store import RESULTS, add_cell, check_budget, progress, provenance, read, results_file
from .tables import TABLES


def plan(tables: list[str], budget: Budget) -> list[tuple[str, str, int]]:
    """Every cell (table, row, seed) of `tables`, seed by seed, so that a run cut short holds whole seeds."""
    return [(t, row.name, seed) for seed in budget.seeds for t in tables for row in TABLES[t].rows]


def job_of(table: str, row_name: str, seed: int) -> tuple:
    """What a cell trains: a pre-training run, shared by the rows of every table that make the same variant."""
    table_ = TABLES[table]
    row = next(r for r in table_.rows if r.name == row_name)
    return (variant_name(row), seed) if table_.pretrained else (table, row_name, seed)


def run_tables(tables: list[str], budget: Budget, *, out: str | Path = "runs/ablations",
               results: str | Path = RESULTS, command: str = "", worker: tuple[int, int] = (0, 1),
               new_cells: bool = True, say=print) -> dict[str, dict]:
    """Run the missing cells of `tables` that fall to this worker (new_cells=False: only the missing
    columns of stored cells); return each table's results document."""
    unknown = [t for t in tables if t not in TABLES]
    if unknown:
        raise ValueError(f"no table {', '.join(unknown)}; the ablation tables are {', '.join(TABLES)}")
    out = Path(out) / budget.name
    for t in tables:
        check_budget(results_file(t, results), budget)  # before any work: a mismatch wastes nothing
    jobs = list(dict.fromkeys(job_of(*cell) for cell in plan(tables, budget)))
    mine = {job for i, job in enumerate(jobs) if i % worker[1] == worker[0]}
    cache, docs = {}, {}
    heads = {}  # each table's provenance, hashed once (the corpus alone is megabytes), not once per cell

    def head(t: str) -> dict:
        if t not in heads:
            heads[t] = provenance(TABLES[t], budget, command)
        return heads[t]

    for t, row_name, seed in plan(tables, budget):
        path = results_file(t, results)
        if job_of(t, row_name, seed) not in mine:
            continue
        table = TABLES[t]
        row = next(r for r in table.rows if r.name == row_name)
        stored = stored_cell(path, row_name, seed)
        if stored is not None:  # finished; a column added to the table since is measured now
            missing = tuple(m for m in row.measures(table) if m.name not in stored["scores"])
            if missing:
                say(f"Table {t}, {row_name}, seed {seed}: adding {', '.join(m.name for m in missing)}")
                docs[t] = add_cell(path, head(t),
                                   merge(stored, run_cell(table, row, seed, budget, out, cache, missing), table))
            continue
        if not new_cells:
            continue
        say(f"Table {t}, {row_name}, seed {seed}: running")
        cell = run_cell(table, row, seed, budget, out, cache)
        docs[t] = add_cell(path, head(t), cell)
        say(f"Table {t}, {row_name}, seed {seed}: " + ", ".join(f"{k} {v:.4g}" for k, v in cell["scores"].items())
            + f" ({cell['seconds']['total']:.0f} s)")
        say(progress([t], budget, results))
    return docs


def stored_cell(path: Path, row_name: str, seed: int) -> dict | None:
    doc = read(path)
    return next((c for c in doc["cells"] if (c["row"], c["seed"]) == (row_name, seed)), None) if doc else None


def merge(stored: dict, added: dict, table) -> dict:
    """A stored cell with the columns just measured; columns the table no longer has are dropped."""
    names = {m.name for m in table.measures}
    cell = {**stored, **{k: added[k] for k in ("pretrain",) if k in added}}
    for part in ("scores", "metrics"):
        cell[part] = {k: v for k, v in {**stored[part], **added[part]}.items() if k in names}
    seconds = {k: v for k, v in {**stored["seconds"], **added["seconds"]}.items() if k in names | {"pretrain"}}
    cell["seconds"] = {**seconds, "total": round(sum(seconds.values()), 1)}
    return cell
