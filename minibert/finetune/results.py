"""Results that take longer than a chapter may run, stored in the repository with their provenance.

    python -m minibert.finetune --task sentiment --model minilm --seeds 3 --record sentiment/minilm
    read_results("sentiment/minilm")     # -> {"command", "data", "model", "device", ..., "runs": [...]}
    gains(read_results("sentiment/course-pretrained"), read_results("sentiment/course-random"))

A chapter that shows a comparison over many seeds (pre-trained against random weights, A.3's grid)
cannot afford to fine-tune for half an hour each time it is run. So the command that made the
numbers writes them, with what is needed to trust and redo them, to `results/finetune/<name>.json`:
the command line, every setting, the sha256 of the task's data files and of the model's weights,
the machine, the versions, the date and the time taken. The chapter reads that file, draws it, and
re-runs a small slice of the same command to show that it still works.
"""

from __future__ import annotations

import datetime
import json
import platform
from pathlib import Path

import torch

from ..hub import resolve, sha256_of
from ..repository import RESULTS as REPOSITORY_RESULTS
from ..repository import code_version
from ..tasks import get_task
from ..tasks.catalog import DATA_DIR
from .recipes import FinetuneConfig, model_folder
from .sweep import main_metric

RESULTS = REPOSITORY_RESULTS / "finetune"


class ResultsError(ValueError):
    """A stored result that is missing or not what its reader expects."""


def results_path(name: str) -> Path:
    """results/finetune/<name>.json; `name` may hold folders ("sentiment/minilm")."""
    if not name or name.startswith(("/", ".")) or ".." in Path(name).parts or name.endswith(".json"):
        raise ResultsError(f"--record {name!r}: give a name such as 'sentiment/minilm' (folders allowed, no "
                           "'..', no leading '/' or '.', no '.json'): it is stored as results/finetune/<name>.json")
    return RESULTS / f"{name}.json"


def provenance(cfg: FinetuneConfig) -> dict:
    """What a reader needs to trust and redo a run: the data and weights by hash, machine, versions,
    and the commit of the code (with whether minibert/ had uncommitted changes)."""
    task = get_task(cfg.task)
    data = {}
    if task.prepared:
        folder = Path(cfg.data_dir).expanduser() if cfg.data_dir else DATA_DIR
        folder = folder / cfg.task if (folder / cfg.task).is_dir() else folder
        data = {f"{split}.jsonl": sha256_of(folder / f"{split}.jsonl") for split in sorted({"train", cfg.eval_split} - {"train-slice"})}
    weights = resolve(model_folder(cfg.model))
    files = sorted(Path(weights).glob("*.safetensors")) if Path(weights).is_dir() else []
    return {"data": data, "model": {"name": cfg.model, "init": cfg.init,
                                    "weights_sha256": {f.name: sha256_of(f) for f in files}},
            "device": f"{platform.machine()}, {torch.get_num_threads()} CPU threads"
            if not torch.cuda.is_available() else torch.cuda.get_device_name(),
            "python": platform.python_version(), "torch": torch.__version__, **code_version()}


def record(name: str, cfg: FinetuneConfig, runs: list[dict], *, command: str, started: datetime.datetime,
           selection: dict | None = None) -> Path:
    """Write `runs` (from `sweep`) and their provenance to results/finetune/<name>.json; with
    `selection` ({"lrs", "seeds", "runs"}, and "epochs" when passes were chosen too), also the
    train-slice runs that chose each sample's learning rate (then the settings hold no single `lr`,
    `sample` or chosen `epochs`: each run's setting names its own)."""
    path = results_path(name)
    chosen = ("lr", "sample") + (("epochs",) if "epochs" in (selection or {}) else ())
    drop = ("out_dir", "progress", "tensorboard", "log_every") + (chosen if selection else ())
    settings = {k: v for k, v in cfg.to_dict().items() if k not in drop}
    doc = {"command": command, "settings": settings, **provenance(cfg), "date": started.isoformat(timespec="seconds"),
           "seconds": round(sum(r["seconds"] for r in runs + (selection or {}).get("runs", [])), 1), "runs": runs}
    if selection:
        doc["selection"] = selection
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)  # whole or not at all: a killed run never leaves half a result
    return path


def read_results(name: str) -> dict:
    """A stored result: its command, settings, provenance and runs (`setting`, `seed`, `metrics`, `seconds`)."""
    path = results_path(name)
    if not path.is_file():
        known = sorted(str(p.relative_to(RESULTS).with_suffix("")) for p in RESULTS.rglob("*.json"))
        raise ResultsError(f"no stored result {name!r} ({path}); stored: {', '.join(known) or 'none'}. "
                           "Make it with `python -m minibert.finetune ... --record NAME` (results/README.md "
                           "lists each one's command)")
    return json.loads(path.read_text(encoding="utf-8"))


def by_sample(doc: dict) -> dict[int, dict]:
    """A stored result's runs per training sample: {k: {"lr", "epochs", "values"}}. A result made
    without --samples is sample 0 at its one learning rate."""
    out = {}
    for run in doc["runs"]:
        setting = dict(part.split("=") for part in run["setting"].split(",")) if "=" in run["setting"] else {}
        k = int(setting.get("sample", 0))
        lr = float(setting.get("lr", doc["settings"].get("lr", "nan")))
        passes = int(setting.get("epochs", doc["settings"].get("epochs", 0)))
        row = out.setdefault(k, {"lr": lr, "epochs": passes, "values": []})
        row["values"].append(run["metrics"][main_metric(run["metrics"])])
    return dict(sorted(out.items()))


def gains(a: dict, b: dict, confidence: float = 0.95) -> list[dict]:
    """Per training sample, and over all of them ("all"): the learning rate each arm chose, each
    arm's scores, and mean(a) - mean(b) with Welch's interval (at least 2 seeds an arm)."""
    from ..stats import difference_ci  # scipy: imported only when a comparison is asked for

    rows = []
    sa, sb = by_sample(a), by_sample(b)
    if set(sa) != set(sb):
        raise ResultsError(f"the two results hold other training samples ({sorted(sa)} and {sorted(sb)}): "
                           "compare runs on the same samples")
    groups = [(k, sa[k]["values"], sb[k]["values"], sa[k]["lr"], sb[k]["lr"]) for k in sa]
    if len(groups) > 1:
        groups.append(("all", [v for k in sa for v in sa[k]["values"]], [v for k in sb for v in sb[k]["values"]],
                       None, None))
    for k, va, vb, lr_a, lr_b in groups:
        d = difference_ci(va, vb, confidence)
        rows.append({"sample": k, "lr_a": lr_a, "lr_b": lr_b, "a": va, "b": vb, "difference": d.difference,
                     "low": d.low, "high": d.high})
    return rows
