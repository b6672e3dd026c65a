"""Timing shared by the benchmarks: interleaved rounds, paired ratios, and how they are reported."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import torch


def interleaved(fns: dict, warmup: int, rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each fn, one call of each per round, the order reversed every other
    round, so that all of them see the same machine state."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times = {name: [] for name in fns}
    for r in range(rounds):
        for name in (list(fns) if r % 2 == 0 else list(reversed(fns))):
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
    return times


def paired_ratio(ours: list[float], base: list[float]) -> tuple[float, tuple[float, float]]:
    """How many times faster ours is: the median of per-round ratios base/ours, and their IQR.
    Pairing the calls of a round cancels drifts in machine load that a ratio of medians keeps."""
    ratios = sorted(b / o for o, b in zip(ours, base))
    q1, _, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else (ratios[0],) * 3
    return statistics.median(ratios), (q1, q3)


def ratio_cell(r: dict) -> str:
    """A table cell for a paired ratio and its IQR: "1.27x (1.23-1.47)"."""
    return f"{r['ratio']:.2f}x ({r['ratio_iqr'][0]:.2f}-{r['ratio_iqr'][1]:.2f})"


def write_results(path: str | None, results) -> None:
    """--json PATH: the whole results, for comparing runs."""
    if path:
        Path(path).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"\nresults written to {path}")


def summarise(times: dict[str, list[float]], tokens: int) -> dict:
    """Median tokens/s of each, and the speed-up as the median of per-round ratios: pairing the two
    steps of a round cancels drifts in machine load that a ratio of two medians would keep."""
    mb, hf = (statistics.median(times[k]) for k in ("minibert", "transformers"))
    ratio, iqr = paired_ratio(times["minibert"], times["transformers"])
    return dict(minibert_s=mb, transformers_s=hf, minibert_tokens_per_s=tokens / mb,
                transformers_tokens_per_s=tokens / hf, ratio=ratio, ratio_iqr=iqr)


def training_step(model, batch: dict, lr: float):
    """One call = one training step: zero_grad, forward with labels, backward, AdamW (weight decay 0.01)."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)

    def step():
        opt.zero_grad(set_to_none=True)
        model(**batch).loss.backward()
        opt.step()
    return step
