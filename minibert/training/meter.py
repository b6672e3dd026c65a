"""What a loop did since its last log record: the mean of each loss over those steps, the tokens
read, the largest gradient norm, and how long the training (not the evaluation) took.

    meter = Meter(("loss",), accelerator.device)
    ...  # each micro-batch: meter.add([loss], batch); each optimizer step: meter.step(grad_norm)
    window = meter.flush(accelerator)  # -> Window: window.losses["loss"], window.tokens_per_s, ...

Both loops log through one (pre-training, `minibert/pretrain/loop.py`; fine-tuning,
`minibert/finetune/loop.py`), so a "loss" in either log means the same thing: the mean over the
steps since the record before, not the last batch's. The sums stay on the device and are read
back once a record, so a GPU does not wait for the CPU every step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from ..inputs import IGNORE_INDEX


@dataclass
class Window:
    """One log record's worth of steps, summed over every process."""
    losses: dict[str, float]  # each loss, the mean over the window's steps
    steps: int
    grad_norm: float          # the largest of the window (before clipping)
    positions: int            # B·T of every batch, [PAD] included: what the hardware computed
    real: int                 # tokens that are not [PAD]: what the model needed
    predicted: int            # labelled positions (the masked LM's selected ones)
    seconds: float

    @property
    def tokens_per_s(self) -> float:
        return self.positions / self.seconds

    @property
    def real_tokens_per_s(self) -> float:
        return self.real / self.seconds


class Meter:
    """Sums a loop's losses and token counts between two log records (see the top)."""

    def __init__(self, names: tuple[str, ...], device: torch.device):
        self.names, self.device = names, device
        self.restart()

    def restart(self) -> None:
        self.sums = torch.zeros(len(self.names), device=self.device)
        self.counts = torch.zeros(3, device=self.device)  # positions, real tokens, labelled positions
        self.steps, self.grad_norm = 0, 0.0
        self.restart_clock()

    def restart_clock(self) -> None:
        """Throughput counts training only: call after an evaluation or a checkpoint."""
        self.start = time.perf_counter()

    def add(self, losses, batch: dict, *, parts: int = 1) -> None:
        """One micro-batch of a step made of `parts` (grad_accum): its losses, in `names` order, and
        its tokens."""
        self.sums += torch.stack(list(losses)).detach().float() / parts
        labels = batch.get("labels")
        predicted = (labels != IGNORE_INDEX).sum() if labels is not None else torch.zeros((), device=self.device)
        self.counts += torch.stack([torch.tensor(batch["input_ids"].numel(), device=self.device),
                                    batch["attention_mask"].sum(), predicted])

    def step(self, grad_norm: float) -> None:
        """One optimizer step done."""
        self.steps += 1
        self.grad_norm = max(self.grad_norm, grad_norm)

    @property
    def open(self) -> bool:
        """Steps taken since the last record."""
        return self.steps > 0

    def flush(self, accelerator) -> Window:
        """The window summed over processes; the meter starts a new one."""
        means = accelerator.reduce(self.sums, reduction="mean") / max(1, self.steps)
        positions, real, predicted = (int(c) for c in accelerator.reduce(self.counts, reduction="sum"))
        window = Window(losses=dict(zip(self.names, means.tolist())), steps=self.steps, grad_norm=self.grad_norm,
                        positions=positions, real=real, predicted=predicted,
                        seconds=time.perf_counter() - self.start)
        self.restart()
        return window
