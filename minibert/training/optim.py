"""BERT's optimiser and learning-rate schedule (Devlin et al. 2018, A.2; Google's optimization.py).

Adam with decoupled weight decay 0.01, none on LayerNorm weights and biases (Google's code
excludes "LayerNorm", "layer_norm" and "bias" by name; here: every 1-D parameter, which is the
same set and survives renaming). One difference from Google's AdamWeightDecayOptimizer, which
skips Adam's bias correction: torch's AdamW applies it. It matters only in the first few hundred
steps, which warm-up keeps small anyway.
"""

from __future__ import annotations

import torch


def parameter_groups(model: torch.nn.Module, weight_decay: float) -> list[dict]:
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (no_decay if p.ndim < 2 else decay).append(p)  # LayerNorm gains and every bias are 1-D
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def bert_schedule(step: int, warmup_steps: int, total_steps: int) -> float:
    """The multiplier of the peak learning rate at `step`, as in Google's code: a linear ramp over
    the warm-up, then the linear decay `1 - step / total_steps` (it counts from step 0, so the
    decay is already at 1 - warmup/total when the ramp ends), down to 0 at the last step."""
    if step < warmup_steps:
        return step / warmup_steps
    return max(0.0, 1.0 - step / total_steps)


def build_optimizer(model: torch.nn.Module, *, lr: float, warmup_steps: int, total_steps: int,
                    weight_decay: float = 0.01, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-6,
                    kind: str = "adamw", fused: bool = False, accelerator=None):
    """AdamW and BERT's schedule over `total_steps` optimizer steps; with kind="deepspeed", the
    optimizer and scheduler that the DeepSpeed config names (e.g. LAMB for batches of thousands).
    fused=True: torch's fused AdamW, one kernel for the whole update of every parameter instead of
    a few per parameter group; the same update up to rounding (tests/test_fast_path.py)."""
    groups = parameter_groups(model, weight_decay)
    if kind == "deepspeed":
        plugin = accelerator.state.deepspeed_plugin if accelerator is not None else None
        if plugin is None or "optimizer" not in plugin.deepspeed_config:
            raise ValueError("optimizer='deepspeed' uses the optimizer section of a DeepSpeed config: launch "
                             "with `accelerate launch --config_file configs/accelerate/deepspeed_lamb.yaml`")
        from accelerate.utils import DummyOptim, DummyScheduler

        optimizer = DummyOptim(groups, lr=lr, weight_decay=weight_decay)
        return optimizer, DummyScheduler(optimizer, total_num_steps=total_steps, warmup_num_steps=warmup_steps)
    if kind != "adamw":
        raise ValueError(f"optimizer={kind!r}; use 'adamw' or 'deepspeed'")
    optimizer = torch.optim.AdamW(groups, lr=lr, betas=betas, eps=eps, fused=fused)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: bert_schedule(step, warmup_steps, total_steps))
    return optimizer, scheduler
