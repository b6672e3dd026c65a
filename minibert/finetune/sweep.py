"""Seeds and grids: "for BERT-LARGE we found that fine-tuning was sometimes unstable on small
datasets, so we ran several random restarts and selected the best model on the Dev set" (§4.1).

    runs = sweep(FinetuneConfig(task="sentiment"), seeds=5)          # one setting, five restarts
    runs = sweep(FinetuneConfig(task="sentiment"), seeds=3, space=GRID)   # A.3's grid, 3 seeds each
    runs, chose = selected_sweep(cfg, seeds=5, samples=2, lrs=[3e-4, 1e-3, 3e-3])  # lr chosen on train
    runs, chose = selected_sweep(cfg, seeds=5, samples=2, lrs=[1e-3], epochs=[3, 10])  # passes too
    print(table(runs))                                                 # per setting: each seed, mean ± sd

Each run goes to its own folder (`<out_dir>/<setting>/seed-<k>`). Settings are compared on the
dev split (`eval_split="dev"`, the default); the test split is scored once, by the chosen setting.
A comparison of two models gives each its own learning rate, chosen on a slice of the training
examples (`eval_split="train-slice"`), never on the dev split it is then scored on.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from pathlib import Path

from ..training.log import read_log
from .loop import finetune
from .recipes import FinetuneConfig, grid


def setting_name(cfg: FinetuneConfig, space: dict | None) -> str:
    """"lr=3e-05,batch_size=16,epochs=2" for a grid point; "run" without a grid."""
    return ",".join(f"{k}={getattr(cfg, k)}" for k in space) if space else "run"


def sweep(base: FinetuneConfig, *, seeds: int = 1, space: dict | None = None, command: str | None = None,
          resume: bool = False) -> list[dict]:
    """Fine-tune every setting of `space` (or `base` alone) with seeds base.seed ... base.seed + seeds - 1.

    resume=True: a run already finished in its folder (same settings) is read back, not redone; one
    that was killed before it finished starts again. A long sweep can be stopped at any time."""
    runs = []
    for cfg in (grid(base, space) if space else [base]):
        name = setting_name(cfg, space)
        for k in range(seeds):
            seed = base.seed + k
            run = dataclasses.replace(cfg, seed=seed, out_dir=str(Path(base.out_dir) / name / f"seed-{seed}"))
            result = (finished(run) if resume else None) or finetune(run, command=command, restart=resume)
            runs.append({"setting": name, "seed": seed, "metrics": result["metrics"], "history": result["history"],
                         "seconds": result["seconds"]})
            if result["task_kind"] == "span":  # small, and what SQuAD 2.0's threshold is chosen from
                runs[-1]["predictions"] = result["predictions"]
    return runs


def selected_sweep(base: FinetuneConfig, *, seeds: int, samples: int = 1, lrs: list[float] | None = None,
                   epochs: list[int] | None = None, select_seeds: int = 2, command: str | None = None,
                   resume: bool = False) -> tuple[list, list]:
    """`seeds` runs on each of `samples` training samples, each sample at the learning rate of `lrs`
    (and, given `epochs`, the number of passes) that scores best on its own train slice (mean of
    `select_seeds` runs; dev is never looked at). Returns (runs, selection): runs are named
    "sample=k,lr=x" ("sample=k,lr=x,epochs=e" when passes are chosen too); selection holds every
    run that chose."""
    space = {"lr": lrs or [base.lr], **({"epochs": epochs} if epochs else {})}
    runs, selection = [], []
    for k in range(samples):
        cfg, chosen = dataclasses.replace(base, sample=k), base
        if lrs or epochs:
            tried = sweep(dataclasses.replace(cfg, eval_split="train-slice",
                                              out_dir=str(Path(base.out_dir) / f"select-sample={k}")),
                          seeds=select_seeds, space=space, command=command, resume=resume)
            selection += [{**r, "sample": k} for r in tried]
            by_name = {setting_name(c, space): c for c in grid(cfg, space)}
            chosen = by_name[summary(tried, main_metric(tried[0]["metrics"]))[0]["setting"]]
        final = {"sample": [k], **{name: [getattr(chosen, name)] for name in space}}
        runs += sweep(dataclasses.replace(cfg, lr=chosen.lr, epochs=chosen.epochs), seeds=seeds, space=final,
                      command=command, resume=resume)
    return runs, selection


def finished(run: FinetuneConfig) -> dict | None:
    """A finished run's result, read from its folder; None if it never finished there (then
    `finetune(run, restart=True)` removes what a killed run left, and starts it again). A folder
    holding a run of other settings is an error."""
    out = Path(run.out_dir)
    if (out / "metrics.json").is_file():
        stored = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
        now = run.to_dict()
        differ = {k: (v, now.get(k)) for k, v in stored["config"].items()
                  if now.get(k) != v and k not in ("out_dir", "progress", "tensorboard", "log_every")}
        if differ:
            raise FileExistsError(f"{out} holds a finished run with other settings ("
                                  + ", ".join(f"{k}: {a!r} there, {b!r} now" for k, (a, b) in differ.items())
                                  + "); choose another --out-dir (nothing was changed)")
        history = [{k: v for k, v in r.items() if k not in ("kind", "split")} for r in read_log(out / "log.jsonl", "eval")]
        kept = out / "predictions.json"  # absent in a folder written before predictions were kept
        return {**stored, "history": history,
                "predictions": json.loads(kept.read_text(encoding="utf-8")) if kept.is_file() else {}}
    return None


def summary(runs: list[dict], metric: str) -> list[dict]:
    """Per setting: the metric of every seed, mean, sample sd, max; best setting (by mean) first."""
    rows = {}
    for r in runs:
        rows.setdefault(r["setting"], []).append(r["metrics"][metric])
    out = [{"setting": name, "values": values, "mean": statistics.fmean(values),
            "sd": statistics.stdev(values) if len(values) > 1 else 0.0, "max": max(values)}
           for name, values in rows.items()]
    return sorted(out, key=lambda row: -row["mean"])


def main_metric(metrics: dict) -> str:
    """The number a task is ranked by: F1 where the benchmark reports it (MRPC, SQuAD, NER), else
    its one metric (accuracy, Matthews, Spearman for STS-B as in Table 1)."""
    for name in ("f1", "spearman", "matthews", "tag_accuracy", "accuracy"):
        if name in metrics:
            return name
    return next(iter(metrics))


def table(runs: list[dict]) -> str:
    """A Markdown table: each setting's metric per seed, mean ± sd, and the best restart (what
    §4.1 keeps: "selected the best model on the Dev set"); the best setting first."""
    metric = main_metric(runs[0]["metrics"])
    seeds = sorted({r["seed"] for r in runs})
    rows = summary(runs, metric)
    scale = 1 if "exact_match" in runs[0]["metrics"] else 100  # SQuAD's scores are percentages already
    cells = ["| setting | " + " | ".join(f"seed {s}" for s in seeds) + f" | {metric} mean ± sd | best restart |",
             "|---|" + "---:|" * (len(seeds) + 2)]
    for row in rows:
        values = " | ".join(f"{v * scale:.1f}" for v in row["values"])
        cells.append(f"| {row['setting']} | {values} | {row['mean'] * scale:.1f} ± {row['sd'] * scale:.1f} "
                     f"| {row['max'] * scale:.1f} |")
    return "\n".join(cells)
