"""The pre-training loop: a plain PyTorch loop on Hugging Face accelerate, so the same code runs on
a CPU, one GPU, many GPUs, many nodes and DeepSpeed, through `accelerate launch` (see README).

One optimizer step = `batch_size` sequences: each of the P processes runs `grad_accum`
micro-batches of batch_size / (P · grad_accum) sequences, gradients are averaged over all of them,
clipped to norm 1.0, and AdamW steps. Loss = mean MLM loss + mean NSP loss (section 3.1).
Scale concerns (devices, precision, compilation, processes) live here, never in the model.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

import torch
from accelerate import Accelerator
from accelerate.utils import is_torch_xla_available, set_seed

from ..checkpoint import CheckpointError, from_hf_state_dict, load_weights, resolve
from ..heads import BertForPreTraining
from ..tokenizer import load_vocab
from . import checkpoints
from .card import write_card
from .data import eval_loader, prepare_shards, prepare_vocab, train_loader
from .logs import RunLog
from .metrics import evaluate, flops_per_token, peak_tflops
from .optim import build_optimizer


class TrainingDiverged(RuntimeError):
    """The loss or the gradient norm stopped being a finite number."""


def make_accelerator(cfg) -> Accelerator:
    """An Accelerator that really spans every launched process. On a machine without a GPU,
    `torchrun --nproc_per_node 2` gives two processes but a default Accelerator in each sees a
    world of one: two unsynchronised copies would train, each thinking it is alone. CPU runs
    therefore need `cpu=True` (or ACCELERATE_USE_CPU=1), set here, and the count is checked."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    precision = cfg.mixed_precision
    if precision == "auto":
        precision = os.environ.get("ACCELERATE_MIXED_PRECISION") or (
            "bf16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "no")
    cpu_only = not torch.cuda.is_available() and not is_torch_xla_available()
    accelerator = Accelerator(cpu=world > 1 and cpu_only, mixed_precision=precision,
                              gradient_accumulation_steps=cfg.grad_accum,
                              dynamo_backend="inductor" if cfg.compile else None)
    # Launchers built on torchrun set WORLD_SIZE; where it is unset (one process, or TPU spawning)
    # there is nothing to compare.
    if "WORLD_SIZE" in os.environ and accelerator.num_processes != world:
        raise RuntimeError(f"launched as {world} processes, but accelerate sees {accelerator.num_processes}: "
                           "they would train unsynchronised copies. On CPU, launch with ACCELERATE_USE_CPU=1 "
                           "torchrun --nproc_per_node N -m minibert.pretrain ...")
    return accelerator


def micro_batch_size(cfg, processes: int) -> int:
    share = processes * cfg.grad_accum
    if cfg.batch_size % share:
        raise ValueError(f"batch_size={cfg.batch_size} sequences cannot be split evenly over {processes} "
                         f"process(es) x grad_accum={cfg.grad_accum}; make it a multiple of {share}")
    return cfg.batch_size // share


def pretrain(cfg, *, resume: str | None = None, model: BertForPreTraining | None = None,
             command: str | None = None) -> dict:
    """Run (or, with resume="auto" or a checkpoint folder, continue) the run `cfg` describes.
    Returns the final held-out metrics. `model` replaces the freshly built one (tests, notebooks)."""
    accelerator = make_accelerator(cfg)
    set_seed(cfg.seed)
    out = Path(cfg.out_dir)
    if resume is None and (out / "log.jsonl").exists():
        raise FileExistsError(f"{out} already holds a run; continue it with --resume auto, or choose "
                              "another --out-dir (nothing was changed)")
    with accelerator.main_process_first():  # the main process writes the caches, the others read them
        vocab_path = prepare_vocab(cfg)
        train_dir, valid_dir = prepare_shards(cfg, vocab_path, "train"), prepare_shards(cfg, vocab_path, "valid")
    vocab = load_vocab(vocab_path)
    model = _model(cfg, model, len(vocab), resume)
    micro = micro_batch_size(cfg, accelerator.num_processes)
    optimizer, scheduler = build_optimizer(model, cfg, accelerator)
    model, optimizer, scheduler = _prepare(accelerator, cfg, model, optimizer, scheduler, micro)
    progress = checkpoints.Progress()
    accelerator.register_for_checkpointing(progress)

    out.mkdir(parents=True, exist_ok=True)
    log = RunLog(out, enabled=accelerator.is_main_process, tensorboard=cfg.tensorboard)
    if resume is not None:
        folder = checkpoints.find(resume, cfg.out_dir)
        checkpoints.check_compatible(folder, cfg)
        accelerator.load_state(str(folder / "state"))
        log.truncate_after(progress.step)
    facts = _facts(cfg, accelerator, model, vocab, train_dir, micro, command)
    log.write("run", step=progress.step, tokens=progress.tokens, resumed=resume is not None, **facts)

    rank, world = accelerator.process_index, accelerator.num_processes
    loop = _Loop(cfg, accelerator, model, optimizer, scheduler, progress, log, facts, vocab_path,
                 batches=iter(train_loader(cfg, train_dir, vocab, micro, rank, world, progress.step * cfg.grad_accum)),
                 valid=eval_loader(cfg, valid_dir, vocab, micro, rank, world))
    try:
        metrics = loop.run()
    finally:
        log.close()
    if accelerator.is_main_process:
        _publish(cfg, out, log, facts, progress, metrics, command)
    accelerator.wait_for_everyone()
    accelerator.end_training()
    return metrics


def _model(cfg, model, vocab_size: int, resume) -> BertForPreTraining:
    model = model or BertForPreTraining(cfg.model_config(vocab_size))
    if model.config.vocab_size != vocab_size:
        raise CheckpointError(f"the model's vocab_size is {model.config.vocab_size}, the vocabulary's {vocab_size}")
    if cfg.init_from and resume is None:  # phase 2: phase 1's weights; optimizer and schedule afresh
        from_hf_state_dict(model, load_weights(resolve(cfg.init_from)), strict=True)
    return model


def _publish(cfg, out: Path, log, facts, progress, metrics, command) -> None:
    """final/: the last checkpoint's model and tokenizer, a model card and the log; and a copy at export_to."""
    final = out / "final"
    shutil.rmtree(final, ignore_errors=True)
    shutil.copytree(checkpoints.completed(out)[-1] / "model", final)
    write_card(final, cfg, facts, progress, metrics, command)
    shutil.copy(log.path, final / "log.jsonl")
    if cfg.export_to:
        shutil.rmtree(cfg.export_to, ignore_errors=True)
        shutil.copytree(final, cfg.export_to)


def _prepare(accelerator, cfg, model, optimizer, scheduler, micro: int):
    if cfg.optimizer == "deepspeed":  # DeepSpeed steps its own scheduler
        # accelerate reads the micro-batch size from a prepared DataLoader; ours is not prepared
        # (its batches are a function of the step, see data.py), so it is told.
        accelerator.state.deepspeed_plugin.deepspeed_config["train_micro_batch_size_per_gpu"] = micro
        return accelerator.prepare(model, optimizer, scheduler)
    # Our scheduler counts optimizer steps. Prepared, accelerate would step it once per process
    # per step (it assumes a schedule written for one process); so it stays ours, checkpointed.
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)
    return model, optimizer, scheduler


def _facts(cfg, accelerator, model, vocab, train_dir, micro, command) -> dict:
    """What the run's first log record says about it (folders of shards made elsewhere have no
    complete.json, and so no corpus facts)."""
    made = Path(train_dir) / "complete.json"
    data = json.loads(made.read_text()) if made.is_file() else {}
    unwrapped = accelerator.unwrap_model(model)
    return dict(config=cfg.to_dict(), model_config=unwrapped.config.to_dict(), vocab_size=len(vocab),
                ln_vocab=math.log(len(vocab)), unigram_entropy=data.get("unigram_entropy"),
                train_instances=data.get("instances"), train_tokens=data.get("tokens"),
                corpus_sha256=data.get("corpus"), parameters=sum(p.numel() for p in unwrapped.parameters()),
                processes=accelerator.num_processes, micro_batch=micro, device=_device_name(accelerator),
                mixed_precision=accelerator.mixed_precision, torch=torch.__version__,
                command=command or " ".join([os.path.basename(sys.executable)] + sys.argv))


def _device_name(accelerator) -> str:
    if accelerator.device.type == "cuda":
        return torch.cuda.get_device_name(accelerator.device)
    return f"{accelerator.device.type} ({torch.get_num_threads()} threads)"


class _Loop:
    """The steps of a run, with logging, evaluation, checkpoints and the NaN/inf watchdog."""

    def __init__(self, cfg, accelerator, model, optimizer, scheduler, progress, log, facts, vocab_path,
                 *, batches, valid):
        self.cfg, self.acc, self.model, self.optimizer, self.scheduler = cfg, accelerator, model, optimizer, scheduler
        self.progress, self.log, self.vocab_path, self.batches, self.valid = progress, log, vocab_path, batches, valid
        self.config = accelerator.unwrap_model(model).config
        self.peak = cfg.peak_tflops or (peak_tflops(facts["device"]) if accelerator.device.type == "cuda" else None)
        self.window = self._new_window()  # what happened since the last log record

    def run(self) -> dict:
        from tqdm.auto import tqdm

        cfg, p = self.cfg, self.progress
        bar = tqdm(total=cfg.max_steps, initial=p.step, disable=not (cfg.progress and self.acc.is_main_process),
                   desc="pre-training", unit="step")
        if p.step == 0:
            self.evaluate()  # the untrained model: MLM loss ~ln V, NSP ~50%
        metrics = None
        while p.step < cfg.max_steps:
            self.step()
            bar.update(1)
            if p.step % cfg.log_every == 0 or p.step == cfg.max_steps:
                bar.set_postfix(loss=f"{self.log_train():.3f}")
            if p.step % cfg.eval_every == 0 or p.step == cfg.max_steps:
                metrics = self.evaluate()
            if p.step % cfg.save_every == 0 or p.step == cfg.max_steps:
                self.save()
        bar.close()
        if metrics is None:  # resumed at the last step: nothing left to train
            metrics = self.evaluate()
            self.save()
        self.log.write("end", step=p.step, tokens=p.tokens, seconds=p.seconds, **metrics)
        return metrics

    def step(self) -> None:
        """One optimizer step over grad_accum micro-batches on every process."""
        cfg, acc, w = self.cfg, self.acc, self.window
        for _ in range(cfg.grad_accum):
            batch = {k: v.to(acc.device, non_blocking=True) for k, v in next(self.batches).items()}
            if not cfg.nsp:  # MLM only: the NSP head gets no labels and no loss
                batch.pop("next_sentence_label")
            with acc.accumulate(self.model):  # no gradient all-reduce until the last micro-batch
                out = self.model(**batch)
                acc.backward(out.loss)  # divided by grad_accum inside
            nsp_loss = out.nsp_loss if cfg.nsp else torch.zeros_like(out.loss)
            w["losses"] += torch.stack([out.loss, out.mlm_loss, nsp_loss]).detach().float() / cfg.grad_accum
            w["counts"] += torch.tensor([batch["input_ids"].numel(), (batch["labels"] != -100).sum()],
                                        device=acc.device)
        grad_norm = acc.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
        grad_norm = self.watchdog(out.loss.detach(), grad_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.progress.step += 1
        w["steps"] += 1
        w["grad_norm"] = max(w["grad_norm"], grad_norm)

    def watchdog(self, loss, grad_norm) -> float:
        """Stop before a non-finite update reaches the weights, on every process at once (each
        process's verdict is summed over all of them). Under fp16 an infinite gradient norm with a
        finite loss is the loss scaler's overflow, which skips the step and lowers the scale: that
        is routine, not divergence."""
        norm = float(grad_norm) if grad_norm is not None else 0.0
        bad = torch.tensor([not math.isfinite(float(loss)), not math.isfinite(norm)], device=self.acc.device)
        loss_bad, norm_bad = (bool(x) for x in self.acc.reduce(bad.float(), reduction="sum") > 0)
        if not loss_bad and (not norm_bad or self.acc.mixed_precision == "fp16"):
            return norm if not norm_bad else 0.0
        p, found = self.progress, checkpoints.completed(Path(self.cfg.out_dir))
        last = (f"the last good checkpoint is {found[-1]}; continue from it with --resume {found[-1]}"
                if found else "no checkpoint was saved yet")
        self.log.write("diverged", step=p.step + 1, tokens=p.tokens, loss=float(loss), grad_norm=norm)
        raise TrainingDiverged(
            f"step {p.step + 1}: the loss is {float(loss)} and the gradient norm {norm} (on this process); the "
            f"update was not applied and nothing was saved, so {last}. Usual causes: a learning rate too high "
            "for the batch size or too short a warm-up, fp16 overflow (use bf16), or a corrupt batch.")

    def _new_window(self) -> dict:
        return dict(losses=torch.zeros(3, device=self.acc.device), counts=torch.zeros(2, device=self.acc.device),
                    steps=0, grad_norm=0.0, start=time.perf_counter())

    def _flush(self) -> dict:
        """Sum the window over processes, count its tokens into the progress, start a new window."""
        w, acc = self.window, self.acc
        losses = acc.reduce(w["losses"], reduction="mean") / max(1, w["steps"])
        counts = acc.reduce(w["counts"], reduction="sum")
        seconds = time.perf_counter() - w["start"]
        self.progress.tokens += int(counts[0])
        self.progress.seconds += seconds
        self.window = self._new_window()
        return dict(w, losses=losses.tolist(), positions=int(counts[0]), predicted=int(counts[1]), seconds=seconds)

    def log_train(self) -> float:
        w, p = self._flush(), self.progress
        loss, mlm_loss, nsp_loss = w["losses"]
        tokens_per_s = w["positions"] / w["seconds"]
        record = dict(step=p.step, tokens=p.tokens, loss=loss, mlm_loss=mlm_loss, lr=self.scheduler.get_last_lr()[0],
                      grad_norm=w["grad_norm"], tokens_per_s=tokens_per_s, seconds=p.seconds)
        if self.cfg.nsp:
            record["nsp_loss"] = nsp_loss
        if self.peak and w["positions"]:
            seq_len = self.cfg.max_seq_length
            flops = flops_per_token(self.config, seq_len, w["predicted"] / w["positions"]) * tokens_per_s
            record["mfu"] = flops / (self.peak * 1e12 * self.acc.num_processes)
        self.log.write("train", **record)
        return loss

    def evaluate(self) -> dict:
        if self.window_open():  # log the steps since the last record first: no step goes unlogged
            self.log_train()
        metrics = evaluate(self.model, self.valid, self.acc, nsp=self.cfg.nsp)
        self.log.write("eval", step=self.progress.step, tokens=self.progress.tokens, **metrics)
        self._restart_clock()
        return metrics

    def save(self) -> None:
        if self.window_open():  # the tokens seen must be counted before they are saved
            self.log_train()
        folder = checkpoints.save(self.acc, self.model, self.cfg, self.progress, self.vocab_path, self.cfg.lowercase)
        self.log.write("checkpoint", step=self.progress.step, tokens=self.progress.tokens, path=str(folder))
        self._restart_clock()

    def _restart_clock(self) -> None:
        """Throughput counts training only, not the evaluation or saving just done."""
        self.window["start"] = time.perf_counter()

    def window_open(self) -> bool:
        return self.window["steps"] > 0
