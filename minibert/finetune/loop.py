"""The fine-tuning loop: a pre-trained BERT, one new head, every weight trained (§4, Figure 4).

    finetune(FinetuneConfig(task="sentiment", model="minilm"))   # -> {"metrics": {"accuracy": ...}, ...}

A plain `for epoch / for batch` on the helpers every loop shares (`minibert.training`: the
accelerator, AdamW with Google's warm-up and decay, the watchdog, the log), so the same code runs
on a laptop and, through `accelerate launch`, on GPUs. After each epoch the model is scored on the
dev split with the task's own metric; at the end the weights and the tokenizer are written in the
Hugging Face layout (they load in transformers' class of the same name).
"""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

import torch
from accelerate.utils import set_seed

from .. import seeding
from ..checkpoint import with_overrides
from ..config import BertConfig
from ..heads import BertWithBiLSTM
from ..hub import resolve
from ..tasks import TaskError, get_task, load_task
from ..tokenizer import Tokenizer
from ..training.accelerator import device_name, make_accelerator
from ..training.claim import claimed
from ..training.log import RunLog
from ..training.meter import Meter
from ..training.optim import build_optimizer
from ..training.watchdog import check_finite
from . import evaluation
from .features import collate, encode, feature_settings
from .kinds import KINDS
from .recipes import FinetuneConfig, model_folder



def finetune(cfg: FinetuneConfig, *, command: str | None = None, restart: bool = False) -> dict:
    """Fine-tune `cfg.model` on `cfg.task`; returns the final metrics on `cfg.eval_split`, the same
    after every epoch (`history`), each example's final prediction (`predictions`, also written to
    out_dir/predictions.json) and the run's facts. The run claims out_dir first (training/claim.py):
    a second run into it is refused at once, as is an out_dir that already holds a run or files a
    run writes (nothing is changed); with `restart`, a run there that did not finish is removed and
    started again."""
    out = Path(cfg.out_dir)
    accelerator = make_accelerator(mixed_precision=cfg.mixed_precision)
    with claimed(out, accelerator, check=lambda: make_room(out, restart)):
        return run(cfg, accelerator, command)


# What a fine-tuning run writes in its out_dir (and TensorBoard's tensorboard/).
RUN_FILES = ("log.jsonl", "metrics.json", "predictions.json", "model", "model.tmp")


def make_room(out: Path, restart: bool) -> None:
    """Refuse an out_dir holding a run or a run's files; with `restart`, remove what a run that did
    not finish (a log, no metrics.json) wrote, and only that."""
    there = [name for name in RUN_FILES if (out / name).exists()]
    if not there:
        return
    if not restart or "log.jsonl" not in there or "metrics.json" in there:
        held = "a fine-tuning run" if "log.jsonl" in there else f"{', '.join(there)}, which a fine-tuning run writes"
        raise FileExistsError(f"{out} already holds {held}; choose another --out-dir (nothing was changed)")
    print(f"{out}: a run that did not finish; starting it again")
    for name in there:
        if (out / name).is_dir():
            shutil.rmtree(out / name)
        else:
            (out / name).unlink()
    for events in (out / "tensorboard").glob("events.out.tfevents.*"):
        events.unlink()


def run(cfg: FinetuneConfig, accelerator, command: str | None) -> dict:
    """The run itself, in an out_dir already claimed."""
    out = Path(cfg.out_dir)
    task = get_task(cfg.task)  # an unknown name fails here, with the known ones
    train, valid = examples(cfg)
    folder = resolve(model_folder(cfg.model))
    tokenizer = Tokenizer.from_pretrained(folder)
    set_seed(cfg.seed)  # the head's initialisation, dropout, the order of batches: this run's seed
    model = _model(cfg, task, folder)
    features = encode(task.kind, train, tokenizer, **feature_settings(cfg))
    loader = _loader(features, cfg, tokenizer.pad_token_id)
    total = cfg.epochs * len(loader)
    optimizer, scheduler = build_optimizer(model, lr=cfg.lr, warmup_steps=int(cfg.warmup_proportion * total),
                                           total_steps=total, weight_decay=cfg.weight_decay)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    log = RunLog(out, enabled=accelerator.is_main_process, tensorboard=cfg.tensorboard)
    facts = dict(config=cfg.to_dict(), task=task.name, task_kind=task.kind, model_folder=str(folder),
                 train_examples=len(train), train_features=len(features), eval_examples=len(valid),
                 parameters=sum(p.numel() for p in model.parameters()), device=device_name(accelerator),
                 torch=torch.__version__, command=command)
    log.write("run", step=0, **facts)

    from tqdm.auto import tqdm

    start, step, metrics, history = time.perf_counter(), 0, {}, []
    meter = Meter(("loss",), accelerator.device)  # the steps since the last "train" record
    bar = tqdm(total=total, disable=not (cfg.progress and accelerator.is_main_process), desc=cfg.task, unit="step")
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        for batch in loader:
            loss = model(**batch, unpad=cfg.unpad).loss
            accelerator.backward(loss)
            grad_norm = accelerator.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            grad_norm = check_finite(accelerator, loss.detach(), grad_norm, step=step + 1, last_checkpoint=None)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            meter.add([loss], batch)
            meter.step(grad_norm)
            bar.update(1)
            if step % cfg.log_every == 0 or step == total:
                w = meter.flush(accelerator)  # the steps since the last record: their mean loss, tokens/s
                log.write("train", step=step, epoch=epoch, loss=w.losses["loss"], lr=scheduler.get_last_lr()[0],
                          grad_norm=w.grad_norm, tokens_per_s=w.tokens_per_s, seconds=time.perf_counter() - start)
                bar.set_postfix(loss=f"{w.losses['loss']:.3f}")
        predictions = {}  # each dev example's prediction, by its id: kept from the last epoch
        metrics = evaluation.evaluate(accelerator.unwrap_model(model), task, valid, tokenizer, cfg, keep=predictions)
        log.write("eval", step=step, epoch=epoch, split=cfg.eval_split, **metrics)
        history.append({"epoch": epoch, "step": step, **metrics})
        meter.restart_clock()  # tokens/s counts training, not the evaluation
    bar.close()
    seconds = time.perf_counter() - start
    log.write("end", step=step, seconds=seconds, **metrics)
    log.close()
    if accelerator.is_main_process:  # metrics.json last: the run is done
        save(accelerator.unwrap_model(model), tokenizer, out, metrics, facts, seconds, predictions)
    accelerator.wait_for_everyone()
    return {"metrics": metrics, "history": history, "predictions": predictions, "seconds": seconds, "steps": step,
            "out_dir": str(out), **facts}


def training_examples(cfg: FinetuneConfig) -> list[dict]:
    """The training split, or a sample of it: the same sample for every seed of a sweep (seeded by
    the task and `cfg.sample`, not the run), so the seeds differ only in what fine-tuning itself draws."""
    train = load_task(cfg.task, "train", cfg.data_dir)
    if cfg.max_train_examples is not None and cfg.max_train_examples < len(train):
        name = f"sample/{cfg.task}" + (f"/{cfg.sample}" if cfg.sample else "")  # sample 0: every stored result's
        train = random.Random(name).sample(train, cfg.max_train_examples)
    return train


def examples(cfg: FinetuneConfig) -> tuple[list[dict], list[dict]]:
    """(trained on, scored on). With eval_split="train-slice" both come from the training examples:
    a fifth of them, drawn by the task and sample (the same for every arm and seed), is held out and
    scored, so a learning rate can be chosen without looking at dev."""
    train = training_examples(cfg)
    if cfg.eval_split != "train-slice":
        valid = load_task(cfg.task, cfg.eval_split, cfg.data_dir)[:cfg.max_eval_examples]
        evaluation.check_scorable(get_task(cfg.task), valid, f"the {cfg.eval_split} split")  # before training, not after
        return train, valid
    held = set(random.Random(f"slice/{cfg.task}/{cfg.sample}").sample(range(len(train)), len(train) // 5))
    if not held:
        raise TaskError(f"eval_split='train-slice' holds out a fifth of the {len(train)} training examples: "
                        "none; give at least 5 (--max-train-examples)")
    return ([x for i, x in enumerate(train) if i not in held],
            [x for i, x in enumerate(train) if i in held][:cfg.max_eval_examples])


def build_model(task, folder: Path, init: str, *, ignore_mismatched_heads: bool = False):
    """The task's head on the encoder in `folder`: its pre-trained weights, or (init="random") the
    same architecture freshly initialised, the paper's baseline for what pre-training buys. A
    classifier trained for another label count is an error, or, with `ignore_mismatched_heads`,
    replaced by a fresh one."""
    kind = KINDS[task.kind]  # Figure 4's panels: (a, b) sentences and pairs, (c) spans, (d) tags; §4.4 choices
    head, labels = kind.head, {}
    if kind.labelled_head:
        labels = ({"id2label": dict(enumerate(task.labels))} if task.labels is not None
                  else {"num_labels": 1, "problem_type": "regression"})
    if init == "random":
        return head(with_overrides(BertConfig.from_json_file(folder / "config.json"), labels))
    return head.from_pretrained(folder, ignore_mismatched_heads=ignore_mismatched_heads, **labels).train()


def _model(cfg: FinetuneConfig, task, folder: Path):
    """The run's model, drawn under its seed: the task's head, a BiLSTM on top if asked (Table 5),
    the encoder frozen if asked (the head alone trains: §5.3's feature-based way, simplest form)."""
    model = build_model(task, folder, cfg.init, ignore_mismatched_heads=cfg.ignore_mismatched_heads)
    if cfg.bilstm:  # after the seed, so the BiLSTM's draws are this run's
        model.bert = BertWithBiLSTM.on(model.bert)
    if cfg.freeze_encoder:  # the optimizer's groups take only what requires a gradient: the head
        model.bert.requires_grad_(False)
    return model


def _loader(features: list[dict], cfg: FinetuneConfig, pad_token_id: int):
    """Batches of `features` in the order this run's seed draws, each padded to its longest row."""
    return torch.utils.data.DataLoader(features, batch_size=cfg.batch_size, shuffle=True,
                                       generator=seeding.generator(cfg.seed, 1),
                                       collate_fn=lambda rows: collate(rows, pad_token_id))


def save(model, tokenizer, out: Path, metrics: dict, facts: dict, seconds: float, predictions: dict) -> None:
    """out/predictions.json, out/model (weights, config.json, tokenizer) and, last, out/metrics.json;
    the model written whole: into a temporary folder first, then renamed, so an interrupted run
    leaves no half-written model. (Both folders are this run's: `make_room` refused an out_dir that
    held either.)"""
    (out / "predictions.json").write_text(json.dumps(predictions) + "\n", encoding="utf-8")
    tmp = out / "model.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save(tmp)
    shutil.rmtree(out / "model", ignore_errors=True)
    tmp.rename(out / "model")
    (out / "metrics.json").write_text(json.dumps({"metrics": metrics, "seconds": seconds, **facts}, indent=2,
                                                 default=str) + "\n", encoding="utf-8")
