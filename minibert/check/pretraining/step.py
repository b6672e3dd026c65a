"""The checker of exercise 5.5: one pre-training step written out. The masked LM's loss at the
labelled positions only (the tied decoder on the gathered hidden states), NSP's on the pooled [CLS],
their sum backward, the gradients clipped, AdamW's step, the schedule's step, the gradients cleared;
two steps in a row, compared weight by weight with minibert's (`model(**batch).loss` and the loop's
order of operations, as in `minibert.pretrain.loop.train_step`)."""

from __future__ import annotations

import copy
import warnings

import torch
import torch.nn.functional as F

from ..common import ExerciseError, as_float, call, optimizer_step, passed, weights_apart
from .accumulation import _batch, _model

STEPS, LR, WARMUP, TOTAL = 2, 1e-2, 1, 10
# max_grad_norm of each step: both gradients' norms (about 1.7) exceed both, and with two values a function
# that clips to a fixed 1.0 shows (AdamW's update ignores a scale common to all steps, not one that changes).
CLIPS = (1.0, 0.5)


def _optimizer(model):
    from ...training.optim import build_optimizer

    return build_optimizer(model, lr=LR, warmup_steps=WARMUP, total_steps=TOTAL)


def _losses(model, batch, *, mlm="labelled", types=True):
    """(MLM loss, NSP loss) as a mistaken step computes them; mlm="every": the input ids predicted at
    every real position; "share": the labelled positions' loss summed, divided by all B x T; types=False:
    the model run without the token types."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"] if types else None, batch["attention_mask"])
    E = model.bert.embeddings.word_embeddings.weight  # (V, H), the tied decoder
    labels = batch["labels"]
    if mlm == "every":
        real = batch["attention_mask"].bool()
        mlm_loss = F.cross_entropy(model.mlm(out.last_hidden_state[real], E), batch["input_ids"][real])
    else:
        selected = labels != -100  # (B, T)
        logits = model.mlm(out.last_hidden_state[selected], E)  # (N, V)
        mlm_loss = F.cross_entropy(logits, labels[selected], reduction="mean" if mlm == "labelled" else "sum")
        if mlm == "share":
            mlm_loss = mlm_loss / labels.numel()
    return mlm_loss, F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])


def reference(model, batches, *, mlm="labelled", types=True, nsp=True, zero_grad=True, clip=True, clips=CLIPS,
              scheduler_first=False) -> list[tuple[float, float]]:
    """minibert's steps on `batches` (the switches make the usual mistakes); returns each step's losses."""
    optimizer, scheduler = _optimizer(model)
    losses = []
    for batch, max_norm in zip(batches, clips, strict=True):
        mlm_loss, nsp_loss = _losses(model, batch, mlm=mlm, types=types)
        (mlm_loss + nsp_loss if nsp else mlm_loss).backward()
        optimizer_step(model, optimizer, scheduler, clip=max_norm if clip else None, scheduler_first=scheduler_first,
                       zero_grad=zero_grad)
        losses.append((float(mlm_loss.detach()), float(nsp_loss.detach())))
    return losses


MISTAKES = [
    (dict(mlm="every"), "the masked LM's loss covers every position: it must cover only the labelled ones "
                        "(labels != -100), whose tokens the input hides; elsewhere the answer is in the input"),
    (dict(mlm="share"), "the MLM loss is divided by all B x T positions: it is the MEAN over the labelled "
                        "positions (F.cross_entropy's default on the gathered logits)"),
    (dict(types=False), "the token types are missing: pass batch['token_type_ids'] to model.bert (sentence B's "
                        "tokens have type 1; without them every token reads as sentence A)"),
    (dict(nsp=False), "the NSP loss is missing: the step minimises the masked LM's loss PLUS NSP's"),
    (dict(zero_grad=False), "the gradients are never cleared: the second step adds the first one's. Call "
                            "optimizer.zero_grad() after the update"),
    (dict(clip=False), "the update is not clipped: clip the gradients' global norm to max_grad_norm between "
                       "backward() and optimizer.step() (after the step, clipping changes nothing)"),
    (dict(scheduler_first=True), "the schedule is stepped before the optimizer: the first update then runs at "
                                 "the second step's rate; call scheduler.step() after optimizer.step()"),
    (dict(clips=(1.0, 1.0)), f"every step was clipped to 1.0: clip to the max_grad_norm given ({CLIPS[0]} at the "
                             f"first step, {CLIPS[1]} at the second)"),
]


def _pairs(batch: dict) -> dict:
    """The batch with token types as an NSP pair has them: 0 for A, 1 for B (the second half of each row's real
    tokens) and 0 at padding, so that a model run without token_type_ids shows."""
    real = batch["attention_mask"]
    second = torch.arange(real.shape[1])[None] >= real.sum(1, keepdim=True) // 2
    return {**batch, "token_type_ids": (second & real.bool()).long()}


def _weights(model) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def pretraining_step(fn) -> None:
    """`fn(model, batch, optimizer, scheduler, max_grad_norm) -> (mlm_loss, nsp_loss)`: one step."""
    batches = [_pairs(_batch(6, 12, [2, 1, 4, 3, 1, 2], seed=10)), _pairs(_batch(6, 12, [1, 5, 2, 2, 3, 1], seed=11))]
    kept = [{k: v.clone() for k, v in b.items()} for b in batches]
    model = _model(3)
    start = _weights(model)
    expected = reference(model, batches)
    wanted = _weights(model)
    mine = _model(3)
    optimizer, scheduler = _optimizer(mine)
    for i, (batch, max_norm) in enumerate(zip(batches, CLIPS, strict=True)):
        case = (f"step {i + 1} of 2 (a 2-layer BERT, 6 rows of sentence pairs, lr {LR}, warm-up {WARMUP} of {TOTAL} "
                f"steps, max_grad_norm={max_norm})")
        got = call(fn, case, mine, batch, optimizer, scheduler, max_norm)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise ExerciseError(f"{case}: expected (mlm_loss, nsp_loss), received {got!r:.200}")
        for name, value, want in zip(("mlm_loss", "nsp_loss"), got, expected[i]):
            number, problem = as_float(value)
            if problem:
                raise ExerciseError(f"{case}: {name} {problem}")
            if abs(number - want) > 1e-5 * max(1.0, abs(want)):
                raise ExerciseError(f"{case}: {name} {number:.6f}, expected {want:.6f}" + _hint(batches, start, i, got))
    if any(not torch.equal(b[k], c[k]) for b, c in zip(batches, kept) for k in c):
        raise ExerciseError("your step changed the batch it was given; read it, do not write to it")
    off = weights_apart(_weights(mine), wanted, start)
    if off > 1e-4:
        raise ExerciseError(f"after two steps the weights are not minibert's (off by {off:.1%} of how far the "
                            "steps moved them)" + _hint(batches, start, None, None, _weights(mine)))
    _one_label(fn)
    passed("pretraining_step", "two steps in a row: the losses at the labelled positions and the weights after "
                               "them are minibert's; with one labelled position the MLM loss is that position's "
                               "cross-entropy to 1e-6")


def _one_label(fn) -> None:
    """One labelled position in the batch: the MLM loss is its cross-entropy, divided by N = 1 exactly. Compared
    with float64 to 1e-6 of its value (float32 styles agree to ~1e-7), so that N + 1e-5 shows."""
    batch, model = _pairs(_batch(4, 10, [1, 0, 0, 0], seed=20)), _model(5)
    with torch.no_grad():
        want = float(_losses(copy.deepcopy(model).double(), batch)[0])
    optimizer, scheduler = _optimizer(model)
    case = "one step on 4 rows of 10 tokens with a single labelled position in all (N = 1), max_grad_norm=1.0"
    got = call(fn, case, model, batch, optimizer, scheduler, 1.0)
    number = as_float(got[0])[0] if isinstance(got, (tuple, list)) and len(got) == 2 else None
    if number is None or abs(number - want) > 1e-6 * max(1.0, abs(want)):
        hint = ("\n  hint: your MLM loss is the sum divided by N + 1e-5 (Google's guard against 0 / 0), not by N: "
                "the mean over the N labelled positions is F.cross_entropy's default on the gathered logits"
                if number is not None and abs(number * (1 + 1e-5) - want) < 1e-6 * abs(want) else "")
        shown = f"{number:.7f}" if number is not None else repr(got)[:200]
        raise ExerciseError(f"{case}: mlm_loss {shown}, expected {want:.7f} (to 1e-6 of it)" + hint)


def _hint(batches, start, step, got, weights=None) -> str:
    """The known mistake whose losses (at `step`) or final weights match the learner's."""
    for settings, hint in MISTAKES:
        model = _model(3)
        with warnings.catch_warnings():  # torch warns of the scheduler-first mistake this simulates
            warnings.simplefilter("ignore")
            losses = reference(model, batches, **settings)
        if weights is not None and weights_apart(weights, _weights(model), start) < 1e-4:
            return f"\n  hint: {hint}"
        if step is not None and all(abs(as_float(g)[0] - w) < 1e-5 * max(1.0, abs(w))
                                    for g, w in zip(got, losses[step])):
            return f"\n  hint: {hint}"
    return ("\n  hint: out = model.bert(ids, types, mask); MLM: model.mlm(h[labels != -100], word embeddings) "
            "against labels[labels != -100]; NSP: model.nsp(out.pooler_output); then backward, clip, step, "
            "schedule, zero_grad")
