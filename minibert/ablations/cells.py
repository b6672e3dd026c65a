"""One cell of a table: one row at one seed. Pre-train the row's variant (or reuse it: Tables 5, 6 and
8 share their BERT row), then measure every column.

A pre-training run lives in `<out>/pretrain/<variant>/seed-<s>`, named by the settings that make it
differ, so a row that two tables share is trained once. A run killed part-way continues from its
last checkpoint (exactly, see `minibert.pretrain`); fine-tuning runs that finished are read back.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..finetune import FinetuneConfig, finetune
from ..finetune.feature_based import feature_based
from ..finetune.sweep import finished
from ..pretrain import heldout_metrics, pretrain, read_log, recipe
from ..pretrain.baselines import neighbour_floors
from ..training.resume import completed
from .budget import Budget
from .tables import Measure, Row, Table


def pretrain_settings(row: Row, budget: Budget, seed: int, phase: int = 1) -> dict:
    """The PretrainConfig fields of a row's variant in `phase` (1, or 2 when the budget has one): the
    budget's, then the row's changes (its model_overrides added to the budget's dropout)."""
    steps = budget.steps if phase == 1 else budget.phase2_steps
    shape = (dict(max_seq_length=budget.max_seq_length, max_predictions=budget.max_predictions,
                  batch_size=budget.batch_size, max_steps=steps, lr=budget.lr, warmup_steps=budget.warmup_steps)
             if phase == 1 else
             dict(max_seq_length=budget.phase2_seq_length, max_predictions=budget.phase2_max_predictions,
                  batch_size=budget.phase2_batch_size, max_steps=steps, lr=budget.phase2_lr,
                  warmup_steps=max(1, steps // 10)))
    dropout = {} if budget.dropout is None else {"hidden_dropout_prob": budget.dropout,
                                                 "attention_probs_dropout_prob": budget.dropout}
    changes = {**row.pretrain, "model_overrides": {**dropout, **row.pretrain.get("model_overrides", {})}}
    return dict(train_corpus=budget.train_corpus, valid_corpus=budget.valid_corpus, cache_dir=budget.cache_dir,
                vocab_size=budget.vocab_size, **shape, eval_batches=budget.eval_batches, seed=seed,
                eval_every=max(1, steps // 4), save_every=max(1, steps // 4), log_every=max(1, steps // 24),
                keep_last=1, progress=False, tensorboard=False, **changes)


def heldout_settings(row: Row, budget: Budget, seed: int) -> dict:
    """The held-out split every row at `seed` is scored on: the finished model's length, one
    contiguous segment (nsp=False: the NSP rows' pairs would be other shards than the others') and
    BERT's 80/10/10, so that rows differ only by their models."""
    phase = 2 if budget.phase2_steps else 1
    return {**pretrain_settings(row, budget, seed, phase), "nsp": False, "mask_proportions": (0.8, 0.1, 0.1)}


def variant_name(row: Row) -> str:
    """A folder name from what the variant changes: "mlm-nsp", "ltr", "mlm-L4", "mlm-nsp-mix-1.0-0.0-0.0"."""
    cfg = recipe("tiny", **row.pretrain)
    name = cfg.objective + ("-nsp" if cfg.nsp else "")
    layers = cfg.model_overrides.get("num_hidden_layers")
    name += f"-L{layers}" if layers else ""
    if cfg.mask_proportions != (0.8, 0.1, 0.1):
        name += "-mix-" + "-".join(f"{p:g}" for p in cfg.mask_proportions)
    return name


def pretrained_model(row: Row, budget: Budget, seed: int, out: Path) -> tuple[str, dict]:
    """The folder of the row's pre-trained model at `seed` (trained now if need be) and its held-out
    metrics. With a phase 2, phase 1 lives beside it in `seed-<s>-phase1`."""
    folder = out / "pretrain" / variant_name(row) / f"seed-{seed}"
    if not budget.phase2_steps:
        return _phase(recipe("tiny", out_dir=str(folder), **pretrain_settings(row, budget, seed)))
    phase1, facts1 = _phase(recipe("tiny", out_dir=f"{folder}-phase1", **pretrain_settings(row, budget, seed)))
    model, facts = _phase(recipe("tiny", out_dir=str(folder), init_from=phase1,
                                 **pretrain_settings(row, budget, seed, phase=2)))
    return model, {**facts, "seconds": facts1.get("seconds", 0.0) + facts.get("seconds", 0.0),
                   "tokens": facts1.get("tokens", 0) + facts.get("tokens", 0),
                   "phase1": {k: v for k, v in facts1.items() if k != "phase1"}}


def _phase(cfg) -> tuple[str, dict]:
    """Train `cfg` unless its folder already holds it finished; its final model and its end-of-run facts."""
    folder = Path(cfg.out_dir)
    if (folder / "final" / "config.json").is_file():
        saved = folder / "pretrain_config.json"  # written when the run ended
        settings = json.loads(saved.read_text()) if saved.is_file() else None
        end = [r for r in read_log(folder) if r["kind"] == "end"]
        if end and (settings is None or settings == json.loads(cfg.to_json())):
            return str(folder / "final"), {k: v for k, v in end[-1].items() if k not in ("kind",)}
        raise FileExistsError(f"{folder} holds a pre-training run of other settings; remove it or choose "
                              "another --out-dir (nothing was changed)")
    # Killed part-way: continue from its last checkpoint; killed before its first, start again (the
    # loop sets the failed run's log aside).
    pretrain(cfg, resume="auto" if completed(folder) else None, command="python -m minibert.ablations")
    (folder / "pretrain_config.json").write_text(cfg.to_json(), encoding="utf-8")
    end = [r for r in read_log(folder) if r["kind"] == "end"][-1]
    return str(folder / "final"), {k: v for k, v in end.items() if k != "kind"}


def finetune_settings(table: Table, row: Row, measure: Measure, budget: Budget, model: str, seed: int,
                      folder: Path) -> FinetuneConfig:
    if table.number == "7":  # a real BERT: A.3's settings
        fit = dict(lr=budget.table7_lr, batch_size=budget.table7_batch_size, epochs=budget.table7_epochs,
                   max_seq_length=budget.table7_seq_length)
    else:
        fit = dict(lr=budget.finetune_lr, batch_size=budget.finetune_batch_size, epochs=budget.finetune_epochs,
                   max_seq_length=budget.seq_length)
    if measure.kind == "feature" or row.combination:
        fit.update(lr=budget.feature_lr, epochs=budget.feature_epochs)
    return FinetuneConfig(task=measure.task, model=model, seed=seed, max_train_examples=budget.train_examples,
                          max_eval_examples=budget.eval_examples, out_dir=str(folder), progress=False,
                          **fit, **row.finetune)


def run_cell(table: Table, row: Row, seed: int, budget: Budget, out: Path, cache: dict,
             measures: tuple[Measure, ...] | None = None) -> dict:
    """Every column (or those of `measures`) of one row at one seed: {"scores": {column: number},
    "metrics": {...}, "seconds": {...}}. `cache` keeps Table 7's frozen features and each held-out
    split's count floors from cell to cell."""
    start = time.perf_counter()
    cell = {"row": row.name, "seed": seed, "scores": {}, "metrics": {}, "seconds": {}}
    if table.pretrained:
        model, facts = pretrained_model(row, budget, seed, out)
        cell["pretrain"] = {"variant": variant_name(row), **facts}
        cell["seconds"]["pretrain"] = round(facts.get("seconds", 0.0), 1)
    else:
        model = budget.table7_model
    # Frozen features of a pre-trained cell's own model are of no use to the next cell; Table 7's are.
    features = {} if table.pretrained else cache.setdefault("features", {})
    for measure in row.measures(table) if measures is None else measures:
        t0 = time.perf_counter()
        if measure.kind == "heldout":  # every row at this seed: the same split, the same corruption
            cfg = recipe("tiny", out_dir=str(out), **heldout_settings(row, budget, seed))
            metrics = {**heldout_metrics(cfg, model), **(floors(cfg, cache) if cfg.objective == "mlm" else {})}
        else:
            folder = (out / "finetune" / f"table-{table.number}" / _slug(row.name) / _slug(measure.name)
                      / f"seed-{seed}")
            cfg = finetune_settings(table, row, measure, budget, model, seed, folder)
            combination = row.combination or measure.combination
            if combination:
                metrics = feature_based(cfg, combination, cache=features)["metrics"]
            else:
                metrics = (finished(cfg) or finetune(cfg, command="python -m minibert.ablations",
                                                     restart=True))["metrics"]
        cell["metrics"][measure.name] = metrics
        cell["scores"][measure.name] = metrics[measure.metric]
        cell["seconds"][measure.name] = round(time.perf_counter() - t0, 1)
    cell["seconds"]["total"] = round(time.perf_counter() - start, 1)
    return cell


def floors(cfg, cache: dict) -> dict:
    """The count tables' accuracies at [MASK] on `cfg`'s held-out split (`minibert.pretrain.baselines`):
    what a row must beat to show it reads more than its neighbours. Counted once per split."""
    known, key = cache.setdefault("floors", {}), (cfg.seed, cfg.max_seq_length, cfg.eval_batches)
    if key not in known:
        known[key] = {f"floor_{name}_at_mask": kinds["mask"] for name, kinds in neighbour_floors(cfg).items()}
    return known[key]


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-").replace("--", "-")

