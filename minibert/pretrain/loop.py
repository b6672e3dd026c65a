"""The pre-training loop: a plain PyTorch loop on Hugging Face accelerate, so the same code runs on
a CPU, one GPU, many GPUs, many nodes and DeepSpeed, through `accelerate launch` (chapter 10).

One optimizer step = `batch_size` sequences shared out over processes and accumulation steps
(training/accelerator.py); gradients are averaged, clipped to norm 1.0, and AdamW steps. Loss =
mean MLM loss + mean NSP loss (section 3.1). The switches that make it fast, or fit, on a GPU
(bf16 autocast, unpadding, fused AdamW, a compiled encoder over static shapes, micro-batches
sized in tokens, gradient checkpointing) change how a step is computed, never what:
tests/test_fast_path.py holds them to it. What every loop shares (the accelerator, optimizer,
watchdog, log, meter and checkpoints) is in `minibert.training`; what is pre-training's is here:
`pretrain()` sets a run up, `train()` is its loop, one `train_step()` an optimizer step.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed

from ..checkpoint import CheckpointError, from_hf_state_dict, load_weights
from ..heads import BertForPreTraining
from ..hub import resolve
from ..repository import code_version
from ..tokenizer import load_vocab
from ..training import export
from ..training import resume as resume_from
from ..training.accelerator import accumulation_steps, device_name, make_accelerator, micro_batch_size, prepare
from ..training.claim import claimed
from ..training.log import RunLog
from ..training.meter import Meter
from ..training.optim import build_optimizer
from ..training.watchdog import TrainingDiverged, check_finite
from .card import write_card
from .data import eval_loader, prepare_shards, prepare_vocab, train_loader
from .metrics import evaluate as evaluate_model
from .metrics import flops_per_token, peak_tflops
from .passes import corpus_lines
from .recipes import PretrainConfig

# Settings that change what a run computes: resuming under other values would not continue the
# same run, so it is refused (training/resume.py). The rest may change between the two runs.
MUST_MATCH = ("model", "model_overrides", "train_corpus", "vocab", "vocab_size", "lowercase", "max_seq_length",
              "short_seq_prob", "dupe_factor", "nsp", "objective", "masking", "mlm_probability", "mask_proportions",
              "max_predictions", "whole_word", "batch_size", "lr", "warmup_steps", "weight_decay", "adam_betas",
              "adam_eps", "max_grad_norm", "optimizer", "seed", "max_steps")
SETTINGS_FILE = "pretrain_config.json"
LOSSES = ("loss", "mlm_loss", "nsp_loss")  # what the log's "train" records average (nsp_loss 0 without NSP)


def pretrain(cfg: PretrainConfig, *, resume: str | None = None, model: BertForPreTraining | None = None,
             command: str | None = None, announce: bool = False) -> dict:
    """Run (or, with resume="auto" or a checkpoint folder, continue) the run `cfg` describes.
    Returns the final held-out metrics. `model` replaces the freshly built one (tests, notebooks);
    `announce` (the command line's) first prints what the run reads and how often (`passes.py`).
    The run claims its folder first (training/claim.py): a second run into it is refused at once,
    as is anything the run would write over (an existing run, or --export-to's files), before
    anything is written: a refused run changes nothing."""
    accelerator = make_accelerator(mixed_precision=cfg.mixed_precision, grad_accum=cfg.grad_accum)
    out = Path(cfg.out_dir)
    with claimed(out, accelerator, check=lambda: _starting_point(cfg, out, resume)) as checkpoint:
        if announce and accelerator.is_main_process:  # once the run is accepted, before it starts
            print("\n".join(corpus_lines(cfg)), file=sys.stderr, flush=True)
        return _run(cfg, accelerator, checkpoint, model, command, resume)


def _starting_point(cfg: PretrainConfig, out: Path, resume: str | None) -> Path | None:
    """The checkpoint to continue from (None: step 0), or a refusal; made under the folder's claim."""
    export.check_replaceable(out / "final", flag="--out-dir")  # someone's own final/ is never replaced
    checkpoint = resume_from.start(resume, out)
    if checkpoint is not None:
        resume_from.check_compatible(checkpoint, cfg.to_json(), SETTINGS_FILE, MUST_MATCH,
                                     defaults=json.loads(type(cfg)().to_json()))
    if cfg.export_to:
        export.check_replaceable(cfg.export_to, apart_from=out)
    return checkpoint


def _run(cfg: PretrainConfig, accelerator: Accelerator, checkpoint: Path | None, model, command,
         resume: str | None) -> dict:
    grad_accum = cfg.grad_accum
    if cfg.micro_batch_tokens:  # sequence-length aware: as many sequences per pass as the tokens allow
        grad_accum = accumulation_steps(cfg.batch_size, cfg.max_seq_length, accelerator.num_processes,
                                        cfg.micro_batch_tokens)
        accelerator.gradient_accumulation_steps = grad_accum
    set_seed(cfg.seed)
    out = Path(cfg.out_dir)
    with accelerator.main_process_first():  # the main process writes the caches, the others read them
        vocab_path = prepare_vocab(cfg)
        train_dir, valid_dir = prepare_shards(cfg, vocab_path, "train"), prepare_shards(cfg, vocab_path, "valid")
    vocab = load_vocab(vocab_path)
    model = _model(cfg, model, len(vocab), checkpoint)
    micro = micro_batch_size(cfg.batch_size, grad_accum, accelerator.num_processes)
    fused = cfg.fused_adamw if cfg.fused_adamw is not None else accelerator.device.type == "cuda"
    optimizer, scheduler = build_optimizer(
        model, lr=cfg.lr, warmup_steps=cfg.warmup_steps, total_steps=cfg.max_steps, weight_decay=cfg.weight_decay,
        betas=cfg.adam_betas, eps=cfg.adam_eps, kind=cfg.optimizer, fused=fused, accelerator=accelerator)
    model.bert.encoder.gradient_checkpointing = cfg.gradient_checkpointing
    if cfg.compile:  # in place, so the state dict keeps its names; see data.py for the static shapes
        model.bert.encoder.compile(dynamic=None if cfg.unpad else False)
    model, optimizer, scheduler = prepare(accelerator, model, optimizer, scheduler, micro=micro, grad_accum=grad_accum,
                                          deepspeed=cfg.optimizer == "deepspeed")
    progress = resume_from.Progress()
    accelerator.register_for_checkpointing(progress)

    log = RunLog(out, enabled=accelerator.is_main_process, tensorboard=cfg.tensorboard)
    if checkpoint is not None:
        accelerator.load_state(str(checkpoint / "state"))
        log.truncate_after(progress.step)
    elif accelerator.is_main_process and (said := resume_from.set_aside(out, resume)):  # step 0: say why
        print(f"note: {said}", file=sys.stderr)
    facts = _facts(cfg, accelerator, model, vocab, train_dir, micro, grad_accum, command)
    log.write("run", step=progress.step, tokens=progress.tokens, resumed=checkpoint is not None, **facts)

    rank, world = accelerator.process_index, accelerator.num_processes
    peak = cfg.peak_tflops or (peak_tflops(facts["device"]) if accelerator.device.type == "cuda" else None)
    run = _Run(cfg, accelerator, model, optimizer, scheduler, progress, log, Meter(LOSSES, accelerator.device),
               vocab_path, grad_accum, peak)
    try:
        metrics = train(run, iter(train_loader(cfg, train_dir, vocab, micro, rank, world, progress.step * grad_accum)),
                        eval_loader(cfg, valid_dir, vocab, micro, rank, world))
    finally:
        log.close()
    if accelerator.is_main_process:
        _publish(cfg, out, log, facts, progress, metrics, command)
    accelerator.wait_for_everyone()
    accelerator.end_training()
    return metrics


def _model(cfg: PretrainConfig, model, vocab_size: int, checkpoint: Path | None) -> BertForPreTraining:
    model = model or BertForPreTraining(cfg.model_config(vocab_size))
    if model.config.vocab_size != vocab_size:
        raise CheckpointError(f"the model's vocab_size is {model.config.vocab_size}, the vocabulary's {vocab_size}")
    if cfg.init_from and checkpoint is None:  # phase 2: phase 1's weights; optimizer and schedule afresh
        from_hf_state_dict(model, load_weights(resolve(cfg.init_from)), strict=True)
    return model


def _publish(cfg: PretrainConfig, out: Path, log, facts, progress, metrics, command) -> None:
    """final/: the last checkpoint's model and tokenizer, a model card and the log; and a copy at
    export_to. Each is written whole, and replaces only an earlier export (training/export.py)."""
    def fill(final: Path) -> None:
        shutil.copytree(resume_from.completed(out)[-1] / "model", final)
        write_card(final, cfg, facts, progress, metrics, command)
        shutil.copy(log.path, final / "log.jsonl")
        if cfg.init_from and (Path(cfg.init_from) / "log.jsonl").is_file():  # phase 2: phase 1's curve goes with it
            shutil.copy(Path(cfg.init_from) / "log.jsonl", final / "log-phase1.jsonl")

    export.write_whole(out / "final", fill, flag="--out-dir")
    if cfg.export_to:
        try:
            export.write_whole(cfg.export_to, lambda folder: shutil.copytree(out / "final", folder))
        except FileExistsError as e:  # the folder changed during the run
            raise FileExistsError(f"{e}. The run itself finished: its model is in {out / 'final'}") from None


def _facts(cfg: PretrainConfig, accelerator: Accelerator, model, vocab, train_dir, micro, grad_accum, command) -> dict:
    """What the run's first log record says about it (folders of shards made elsewhere have no
    complete.json, and so no corpus facts)."""
    made = Path(train_dir) / "complete.json"
    data = json.loads(made.read_text()) if made.is_file() else {}
    unwrapped = accelerator.unwrap_model(model)
    return dict(config=cfg.to_dict(), model_config=unwrapped.config.to_dict(), vocab_size=len(vocab),
                ln_vocab=math.log(len(vocab)), unigram_entropy=data.get("unigram_entropy"),
                train_instances=data.get("instances"), train_tokens=data.get("tokens"),
                corpus_sha256=data.get("corpus"), parameters=sum(p.numel() for p in unwrapped.parameters()),
                processes=accelerator.num_processes, micro_batch=micro, grad_accum=grad_accum,
                device=device_name(accelerator),
                mixed_precision=accelerator.mixed_precision, torch=torch.__version__, **code_version(),
                command=command or " ".join([os.path.basename(sys.executable)] + sys.argv))


@dataclass
class _Run:
    """What the steps of one run share: its settings, the prepared model, optimizer and schedule,
    where it stands, its log and the meter of the steps since the last log record."""
    cfg: PretrainConfig
    acc: Accelerator
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    progress: resume_from.Progress
    log: RunLog
    meter: Meter
    vocab_path: Path
    grad_accum: int
    peak: float | None  # the accelerator's peak TFLOP/s, for MFU (None on a CPU)


def train(run: _Run, batches, valid) -> dict:
    """The loop: optimizer steps until max_steps, and every so often a log record, an evaluation
    on the held-out split and a checkpoint. Returns the last evaluation's metrics."""
    from tqdm.auto import tqdm

    cfg, p = run.cfg, run.progress
    bar = tqdm(total=cfg.max_steps, initial=p.step, disable=not (cfg.progress and run.acc.is_main_process),
               desc="pre-training", unit="step")
    if p.step == 0:
        evaluate(run, valid)  # the untrained model: MLM loss ~ln V, NSP ~50%
    metrics = None
    while p.step < cfg.max_steps:
        train_step(run, batches)
        bar.update(1)
        last = p.step == cfg.max_steps
        if p.step % cfg.log_every == 0 or last:
            bar.set_postfix(loss=f"{log_train(run):.3f}")
        if p.step % cfg.eval_every == 0 or last:
            metrics = evaluate(run, valid)
        if p.step % cfg.save_every == 0 or last:
            save(run)
    bar.close()
    if metrics is None:  # resumed at the last step: nothing left to train
        metrics = evaluate(run, valid)
        save(run)
    run.log.write("end", step=p.step, tokens=p.tokens, seconds=p.seconds, **metrics)
    return metrics


def train_step(run: _Run, batches) -> None:
    """One optimizer step over grad_accum micro-batches on every process: forward, backward,
    clip, the watchdog, AdamW, the schedule."""
    cfg, acc = run.cfg, run.acc
    for _ in range(run.grad_accum):
        batch = {k: v.to(acc.device, non_blocking=True) for k, v in next(batches).items()}
        if not cfg.nsp:  # MLM only: the NSP head gets no labels and no loss
            batch.pop("next_sentence_label")
        with acc.accumulate(run.model):  # no gradient all-reduce until the last micro-batch
            out = run.model(**batch, unpad=cfg.unpad)
            acc.backward(out.loss)  # divided by grad_accum inside
        nsp_loss = out.nsp_loss if cfg.nsp else torch.zeros_like(out.loss)
        run.meter.add([out.loss, out.mlm_loss, nsp_loss], batch, parts=run.grad_accum)
    grad_norm = acc.clip_grad_norm_(run.model.parameters(), cfg.max_grad_norm)
    grad_norm = _watchdog(run, out.loss.detach(), grad_norm)
    run.optimizer.step()
    run.scheduler.step()
    run.optimizer.zero_grad(set_to_none=True)
    run.progress.step += 1
    run.meter.step(grad_norm)


def _watchdog(run: _Run, loss, grad_norm) -> float:
    """The gradient norm, or a "diverged" record and TrainingDiverged before the update."""
    p, found = run.progress, resume_from.completed(Path(run.cfg.out_dir))
    try:
        return check_finite(run.acc, loss, grad_norm, step=p.step + 1, last_checkpoint=found[-1] if found else None)
    except TrainingDiverged:
        norm = float(grad_norm) if grad_norm is not None else 0.0
        run.log.write("diverged", step=p.step + 1, tokens=p.tokens, loss=float(loss), grad_norm=norm)
        raise


def log_train(run: _Run) -> float:
    """A "train" record of the steps since the last one (their mean losses, throughput, MFU);
    returns the mean loss."""
    w, p = run.meter.flush(run.acc), run.progress
    p.tokens += w.positions
    p.seconds += w.seconds
    record = dict(step=p.step, tokens=p.tokens, loss=w.losses["loss"], mlm_loss=w.losses["mlm_loss"],
                  lr=run.scheduler.get_last_lr()[0], grad_norm=w.grad_norm, tokens_per_s=w.tokens_per_s,
                  seconds=p.seconds)
    if run.cfg.nsp:
        record["nsp_loss"] = w.losses["nsp_loss"]
    record["real_tokens_per_s"] = w.real_tokens_per_s  # [PAD] left out: the work the model needs
    if run.peak and w.real:
        # Model FLOPs count real tokens only, so time spent on [PAD] lowers the MFU, as it should.
        config = run.acc.unwrap_model(run.model).config
        flops = flops_per_token(config, run.cfg.max_seq_length, w.predicted / w.real) * w.real_tokens_per_s
        record["mfu"] = flops / (run.peak * 1e12 * run.acc.num_processes)
    run.log.write("train", **record)
    return w.losses["loss"]


def evaluate(run: _Run, valid) -> dict:
    """The held-out metrics, logged; the steps before them are logged first, so none goes unlogged."""
    if run.meter.open:
        log_train(run)
    metrics = evaluate_model(run.model, valid, run.acc, nsp=run.cfg.nsp, unpad=run.cfg.unpad)
    run.log.write("eval", step=run.progress.step, tokens=run.progress.tokens, **metrics)
    run.meter.restart_clock()
    return metrics


def save(run: _Run) -> None:
    """A checkpoint (training/resume.py); the tokens seen are counted into it first."""
    if run.meter.open:
        log_train(run)
    cfg = run.cfg
    folder = resume_from.save(run.acc, run.model, out_dir=Path(cfg.out_dir), progress=run.progress,
                              settings=cfg.to_json(), settings_file=SETTINGS_FILE, keep_last=cfg.keep_last,
                              vocab=run.vocab_path, lowercase=cfg.lowercase)
    run.log.write("checkpoint", step=run.progress.step, tokens=run.progress.tokens, path=str(folder))
    run.meter.restart_clock()
