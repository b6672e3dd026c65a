"""What a pre-training run costs, before it runs: tokens, FLOPs, and days on an accelerator at a
stated model FLOPs utilisation (MFU).

    run_cost(recipe("base"), device="H100", devices=8, mfu=0.4)["days"]
    python -m minibert.pretrain --config base --plan --device H100 --devices 8 --mfu 0.4

The FLOPs are the engine's own (`flops_per_token`, which the loop's MFU uses too); the MFU is the
one number you must bring, and an assumption until `benchmarks/pretrain_speed.py` (or the run's
own log) measures it on your GPU.
"""

from __future__ import annotations

import torch

from .. import paper
from ..heads import BertForPreTraining
from ..tokenizer import load_vocab
from .data import prepare_vocab
from .metrics import PEAK_TFLOPS, flops_per_token, peak_tflops
from .passes import corpus_lines
from .recipes import PretrainConfig, recipe

# The paper's runs as the engine's presets: 90% of 1M steps at 128 tokens, then 10% at 512.
PAPER_RUNS = {"BERT-BASE": ("base", "base-512"), "BERT-LARGE": ("large", "large-512")}
PAPER_CHIPS = {"BERT-BASE": paper.PRETRAINING["base_tpu_chips"], "BERT-LARGE": paper.PRETRAINING["large_tpu_chips"]}


def vocab_size_of(cfg: PretrainConfig) -> int:
    """The run's vocabulary size, without training one: vocab="train" makes vocab_size entries."""
    return cfg.vocab_size if cfg.vocab == "train" else len(load_vocab(prepare_vocab(cfg)))


def predicted_fraction(cfg: PretrainConfig) -> float:
    """The expected share of positions with an MLM label: 15%, unless max_predictions caps it."""
    return min(cfg.mlm_probability, cfg.max_predictions / cfg.max_seq_length)


def run_cost(cfg: PretrainConfig, *, device: str = "H100", devices: int = 1, mfu: float = 0.4) -> dict:
    """Tokens, FLOPs and time of run `cfg` on `devices` accelerators (a name from PEAK_TFLOPS)."""
    peak = peak_tflops(device)
    if peak is None:
        raise ValueError(f"unknown device {device!r}; known: {', '.join(name for name, _ in PEAK_TFLOPS)}")
    if not 0 < mfu <= 1:
        raise ValueError(f"mfu={mfu}: a fraction of the peak, between 0 and 1 (0.4 = 40%)")
    config = cfg.model_config(vocab_size_of(cfg))
    with torch.device("meta"):  # the parameter count without allocating a byte
        parameters = sum(p.numel() for p in BertForPreTraining(config).parameters())
    tokens = cfg.max_steps * cfg.batch_size * cfg.max_seq_length
    per_token = flops_per_token(config, cfg.max_seq_length, predicted_fraction(cfg))
    seconds = tokens * per_token / (peak * 1e12 * devices * mfu)
    return dict(model=cfg.model, parameters=parameters, vocab_size=config.vocab_size, steps=cfg.max_steps,
                batch_size=cfg.batch_size, seq_len=cfg.max_seq_length, tokens=tokens, flops_per_token=per_token,
                flops=tokens * per_token, device=device, devices=devices, peak_tflops=peak, mfu=mfu,
                seconds=seconds, days=seconds / 86_400, device_hours=seconds * devices / 3_600)


def paper_cost(run: str = "BERT-BASE", *, device: str = "H100", devices: int = 8, mfu: float = 0.4) -> dict:
    """The paper's run (both phases) on today's hardware, and the MFU its own TPUs implied: the
    FLOPs over 4 days on 16 (BASE) or 64 (LARGE) chips at TPU v2's peak (the paper does not name
    the TPU generation; v2 was the one offered in 2018, and v3's higher peak would imply less)."""
    phases = [run_cost(recipe(name), device=device, devices=devices, mfu=mfu) for name in PAPER_RUNS[run]]
    flops = sum(p["flops"] for p in phases)
    tpu_seconds = paper.PRETRAINING["days"] * 86_400
    implied = flops / (peak_tflops("TPU v2") * 1e12 * PAPER_CHIPS[run] * tpu_seconds)
    return dict(run=run, phases=phases, tokens=sum(p["tokens"] for p in phases), flops=flops,
                days=sum(p["days"] for p in phases), device_hours=sum(p["device_hours"] for p in phases),
                paper_chips=PAPER_CHIPS[run], paper_days=paper.PRETRAINING["days"], paper_mfu=implied)


def plan_text(cfg: PretrainConfig, *, device: str = "H100", devices: int = 1, mfu: float = 0.4) -> str:
    """What `--plan` prints: the run's size, its data and how often it reads it, its batch as the
    processes will split it, its cost."""
    from ..training.accelerator import accumulation_steps, micro_batch_size

    c = run_cost(cfg, device=device, devices=devices, mfu=mfu)
    grad_accum = (accumulation_steps(cfg.batch_size, cfg.max_seq_length, devices, cfg.micro_batch_tokens)
                  if cfg.micro_batch_tokens else cfg.grad_accum)
    micro = micro_batch_size(cfg.batch_size, grad_accum, devices)
    return "\n".join([
        f"model {cfg.model}: {c['parameters']:,} parameters (vocabulary {c['vocab_size']:,})",
        f"batch {cfg.batch_size} x {cfg.max_seq_length} tokens, {cfg.max_steps:,} steps: {c['tokens']:.3g} tokens",
        *corpus_lines(cfg),
        f"per process and step: {grad_accum} micro-batch(es) of {micro} sequences on each of {devices} process(es)",
        f"FLOPs per token {c['flops_per_token']:.3g} (forward and backward); the run {c['flops']:.3g} FLOPs",
        f"on {devices} x {device} ({c['peak_tflops']:g} TFLOP/s peak each) at {mfu:.0%} MFU: "
        f"{c['days']:.2f} days, {c['device_hours']:,.0f} device-hours",
    ])
