"""The NaN/inf watchdog: stop before a non-finite update reaches the weights."""

from __future__ import annotations

import math
from pathlib import Path

import torch


class TrainingDiverged(RuntimeError):
    """The loss or the gradient norm stopped being a finite number."""


def check_finite(accelerator, loss: torch.Tensor, grad_norm, *, step: int, last_checkpoint: Path | None) -> float:
    """The gradient norm as a float if the step is healthy on every process; else TrainingDiverged.

    Each process's verdict is summed over all of them, so they all stop at the same step. Under
    fp16 an infinite gradient norm with a finite loss is the loss scaler's overflow, which skips
    the step and lowers the scale: that is routine, not divergence (the norm is reported as 0).
    """
    norm = float(grad_norm) if grad_norm is not None else 0.0
    bad = torch.tensor([not math.isfinite(float(loss)), not math.isfinite(norm)], device=accelerator.device)
    loss_bad, norm_bad = (bool(x) for x in accelerator.reduce(bad.float(), reduction="sum") > 0)
    if not loss_bad and (not norm_bad or accelerator.mixed_precision == "fp16"):
        return norm if not norm_bad else 0.0
    last = (f"the last good checkpoint is {last_checkpoint}; continue from it with --resume {last_checkpoint}"
            if last_checkpoint else "no checkpoint was saved yet")
    fix = (" A resume repeats the same steps exactly, so unless the cause was outside the run, start a new run "
           f"from that checkpoint's weights instead (--init-from {last_checkpoint / 'model'}) with a lower --lr or "
           "a longer --warmup-steps: a resume refuses changed settings." if last_checkpoint else "")
    raise TrainingDiverged(
        f"step {step}: the loss is {float(loss)} and the gradient norm {norm} (on this process); the "
        f"update was not applied and nothing was saved, so {last}. Usual causes: a learning rate too high "
        "for the batch size or too short a warm-up, fp16 overflow (use bf16), or a corrupt batch." + fix)
