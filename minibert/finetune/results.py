"""Results that take longer than a chapter may run, stored in the repository with their provenance.

    python -m minibert.finetune --task sentiment --model minilm --seeds 3 --record sentiment/minilm
    read_results("sentiment/minilm")     # -> {"command", "data", "model", "device", ..., "runs": [...]}

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
from ..tasks import get_task
from ..tasks.catalog import DATA_DIR
from .recipes import FinetuneConfig, model_folder

RESULTS = Path(__file__).resolve().parents[2] / "results" / "finetune"


class ResultsError(ValueError):
    """A stored result that is missing or not what its reader expects."""


def results_path(name: str) -> Path:
    """results/finetune/<name>.json; `name` may hold folders ("sentiment/minilm")."""
    if not name or name.startswith(("/", ".")) or ".." in Path(name).parts or name.endswith(".json"):
        raise ResultsError(f"--record {name!r}: give a name such as 'sentiment/minilm' (folders allowed, no "
                           "'..', no leading '/' or '.', no '.json'): it is stored as results/finetune/<name>.json")
    return RESULTS / f"{name}.json"


def provenance(cfg: FinetuneConfig) -> dict:
    """What a reader needs to trust and redo a run: the data and weights by hash, machine, versions."""
    task = get_task(cfg.task)
    data = {}
    if task.prepared:
        folder = Path(cfg.data_dir).expanduser() if cfg.data_dir else DATA_DIR
        folder = folder / cfg.task if (folder / cfg.task).is_dir() else folder
        data = {f"{split}.jsonl": sha256_of(folder / f"{split}.jsonl") for split in ("train", cfg.eval_split)}
    weights = resolve(model_folder(cfg.model))
    files = sorted(Path(weights).glob("*.safetensors")) if Path(weights).is_dir() else []
    return {"data": data, "model": {"name": cfg.model, "init": cfg.init,
                                    "weights_sha256": {f.name: sha256_of(f) for f in files}},
            "device": f"{platform.machine()}, {torch.get_num_threads()} CPU threads"
            if not torch.cuda.is_available() else torch.cuda.get_device_name(),
            "python": platform.python_version(), "torch": torch.__version__}


def record(name: str, cfg: FinetuneConfig, runs: list[dict], *, command: str, started: datetime.datetime) -> Path:
    """Write `runs` (from `sweep`) and their provenance to results/finetune/<name>.json."""
    path = results_path(name)
    settings = {k: v for k, v in cfg.to_dict().items() if k not in ("out_dir", "progress", "tensorboard", "log_every")}
    doc = {"command": command, "settings": settings, **provenance(cfg), "date": started.isoformat(timespec="seconds"),
           "seconds": round(sum(r["seconds"] for r in runs), 1), "runs": runs}
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
