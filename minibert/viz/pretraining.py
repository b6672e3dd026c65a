"""Chapter 05's pictures and tables: the learning-rate schedule, a run's two losses read apart, the
loss baselines, accuracy at [MASK] against the count floors, and what a model puts behind each [MASK].

Training curves against the stored reference runs are `minibert.pretrain.plot_run`; these draw what
it does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def schedule_figure(peak_lr: float, warmup_steps: int, total_steps: int, *, ax=None, title: str | None = None):
    """BERT's learning rate at every step (Google's `optimization.py`: a linear ramp over the warm-up,
    then the linear decay `1 - step / total_steps` counted from step 0), beside the linear decay
    that starts at the end of the warm-up (transformers' `get_linear_schedule_with_warmup`).
    Returns the axes."""
    import matplotlib.pyplot as plt

    from ..training.optim import bert_schedule  # here, not at the top: a picture need not load the training stack

    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 3.2), layout="constrained")
    steps = range(total_steps + 1)
    bert = [peak_lr * bert_schedule(s, warmup_steps, total_steps) for s in steps]  # (total_steps + 1,)
    after = [peak_lr * (s / warmup_steps if s < warmup_steps else
                        max(0.0, (total_steps - s) / max(1, total_steps - warmup_steps))) for s in steps]
    ax.plot(steps, after, color="0.6", ls="--", lw=1.5, label="decay from the end of the warm-up (transformers)")
    ax.plot(steps, bert, color="C0", lw=2, label="BERT: decay counted from step 0 (Google's code, minibert)")
    ax.axvline(warmup_steps, color="C3", ls=":", lw=1)
    ax.annotate(f"warm-up ends (step {warmup_steps})", (warmup_steps, peak_lr * 0.08), xytext=(6, 0),
                textcoords="offset points", fontsize=9, color="C3")
    ax.set(xlabel="optimizer step", ylabel="learning rate", xlim=(0, total_steps), ylim=(0, peak_lr * 1.08),
           title=title or f"peak {peak_lr:g}, {warmup_steps} warm-up steps of {total_steps}")
    ax.legend(fontsize=8, loc="upper right")
    return ax


def losses_figure(records: Sequence[dict], *, title: str | None = None):
    """A run's training MLM and NSP losses on two panels, each against what guessing gives: ln V and the
    unigram entropy for the MLM loss (from the run's first record), ln 2 for NSP. The NSP axis starts at
    0, a perfect guesser's loss, so that a loss wobbling around ln 2 reads as the coin it is rather
    than as signal. Returns the figure."""
    import matplotlib.pyplot as plt

    header = next(r for r in records if r["kind"] == "run")
    train = [r for r in records if r["kind"] == "train"]
    steps = [r["step"] for r in train]
    fig, (mlm, nsp) = plt.subplots(1, 2, figsize=(11, 3.4), layout="constrained")
    mlm.plot(steps, [r["mlm_loss"] for r in train], color="C0", label="training MLM loss")
    mlm.axhline(header["ln_vocab"], color="C3", ls=":", label=f"ln V = {header['ln_vocab']:.2f} (uniform)")
    if header.get("unigram_entropy"):
        mlm.axhline(header["unigram_entropy"], color="C2", ls="--",
                    label=f"unigram entropy = {header['unigram_entropy']:.2f}")
    nsp_losses = [r["nsp_loss"] for r in train if "nsp_loss" in r]
    nsp.plot(steps, nsp_losses, color="C1", label="training NSP loss")
    nsp.axhline(math.log(2), color="C3", ls=":", label="ln 2 = 0.69 (a coin)")
    highest = max((v for v in nsp_losses if math.isfinite(v)), default=math.log(2))
    nsp.set_ylim(0, max(1.0, 1.1 * highest))  # from a perfect guess (0) to above the coin: its scale, not noise's
    mlm.set(title="masked LM", xlabel="optimizer step", ylabel="loss (nats)")
    nsp.set(title="next sentence prediction", xlabel="optimizer step", ylabel="loss (nats)")
    for ax in (mlm, nsp):
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    return fig


def baselines_figure(losses: dict[str, float], *, ax=None, title: str = "MLM loss: lower is better"):
    """One horizontal bar per named loss (nats), with its perplexity exp(loss), the number of equally
    likely tokens the model is as unsure as. Returns the axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.55 * len(losses) + 1), layout="constrained")
    names, values = list(losses), list(losses.values())
    bars = ax.barh(range(len(names)), values, color=[f"C{i}" for i in range(len(names))])
    for bar, value in zip(bars, values, strict=True):
        ax.text(bar.get_width() + 0.05, bar.get_y() + bar.get_height() / 2,
                f"{value:.2f}  (perplexity {math.exp(value):,.0f})", va="center", fontsize=9)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set(xlim=(0, max(values) * 1.45), xlabel="loss (nats)", title=title)
    return ax


def floors_figure(curves: dict[str, Sequence[tuple[float, float]]], floors: dict[str, float], *, ax=None,
                  xlabel: str = "minutes of training on 2 CPU cores", title: str = "held-out accuracy at [MASK]"):
    """Each curve's accuracy at [MASK] positions (points (x, accuracy)) over the floors a count table
    reaches on the same positions (dashed lines, labelled at the right). Returns the axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    for i, (label, points) in enumerate(curves.items()):
        xs, ys = zip(*points, strict=True)
        ax.plot(xs, [100 * y for y in ys], marker="o", ms=3, color=f"C{i}", label=label)
    right = max(x for points in curves.values() for x, _ in points)
    for name, value in floors.items():
        ax.axhline(100 * value, color="0.45", ls="--", lw=1)
        ax.text(right, 100 * value + 0.4, f"{name} {value:.1%}", ha="right", va="bottom", fontsize=8, color="0.3")
    ax.set(xlabel=xlabel, ylabel="% of [MASK] pieces right", title=title, ylim=(0, None))
    ax.legend(loc="upper left", fontsize=8)
    return ax


def fill_mask_table(model, tokenizer, texts: Sequence[str], *, k: int = 5):
    """The k most likely tokens at the first [MASK] of each text, with their probabilities, as a pandas
    table (one row per text, columns 1..k holding "token p"). `model` is a BertForPreTraining."""
    import pandas as pd
    import torch

    rows = {}
    model.eval()
    with torch.no_grad():
        for text in texts:
            batch = tokenizer(text, return_tensors="pt")
            where = (batch["input_ids"][0] == tokenizer.mask_token_id).nonzero()
            if len(where) == 0:
                raise ValueError(f"no [MASK] in {text!r}")
            logits = model(**batch).mlm_logits[0, where[0, 0]]  # (V,): no labels, so every position is decoded
            top = logits.softmax(-1).topk(k)
            tokens = tokenizer.convert_ids_to_tokens(top.indices.tolist())
            rows[text] = [f"{t} {p:.3f}" for t, p in zip(tokens, top.values.tolist(), strict=True)]
    return pd.DataFrame.from_dict(rows, orient="index", columns=range(1, k + 1))
