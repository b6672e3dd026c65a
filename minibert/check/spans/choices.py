"""The checker of exercise 8.3: multiple choice (§4.4). The C choices of each of the B questions are
flattened to B·C rows, one scorer gives each row a number, the numbers are put back as (B, C), and a
softmax runs over the C choices of each question, as `minibert.heads.BertForMultipleChoice` does."""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

import torch

from ...finetune.features import collate, encode
from ...heads import BertForMultipleChoice
from ...tasks import load_task
from ...tokenizer import Tokenizer
from ..common import ExerciseError, short, call, expect_close, passed

COURSE_MODEL = "models/course"


class _Scorer:
    """Wraps a (N, T) scorer; remembers the shapes it was called with, to explain a wrong call."""

    def __init__(self, score):
        self.score, self.calls = score, []

    def __call__(self, input_ids, token_type_ids, attention_mask):
        self.calls.append(tuple(input_ids.shape))
        if input_ids.dim() != 2:
            raise ExerciseError(f"the scorer was called with input_ids of shape {tuple(input_ids.shape)}; it takes "
                                "(B·C, T) rows: flatten (B, C, T) -> (B·C, T) first, as the encoder sees one "
                                "sequence per row")
        return self.score(input_ids, token_type_ids, attention_mask)


def _sum_scorer(input_ids, token_type_ids, attention_mask):  # the hand cases: a row's score is the sum of its ids
    return (input_ids * attention_mask).sum(-1).float()


def _mistakes(batch, score):
    """The usual wrong (logits, probs) for this batch."""
    B, C, T = batch["input_ids"].shape
    flat = {k: v.reshape(B * C, T) for k, v in batch.items()}
    right = score(**flat).view(B, C)
    swapped = {k: v.transpose(0, 1).reshape(B * C, T) for k, v in batch.items()}  # rows in (C, B) order
    return [
        ("the rows were flattened in (C, B) order (a transpose before the reshape) but read back as (B, C): "
         "question b's choices are rows b·C ... b·C + C - 1; reshape (B, C, T) -> (B·C, T) directly",
         score(**swapped).view(B, C), None),
        ("the B·C scores were read back as (C, B) and transposed; they come out in (B, C) order: .view(B, C)",
         score(**flat).view(C, B).t(), None),
        ("the softmax runs over the batch (dim 0); it runs over each question's C choices (dim -1), so each "
         "row of probs sums to 1", right, right.softmax(0)),
    ]


def _check(fn, name, batch, score, expected):
    B, C, T = batch["input_ids"].shape
    copy = {k: v.clone() for k, v in batch.items()}
    scorer = _Scorer(score)
    try:
        got = call(fn, name, copy, scorer)
    except ExerciseError as error:
        if "view size is not compatible" not in str(error):
            raise
        raise ExerciseError(f"{error}\n  hint: .view needs the tensor's memory in (B, C, T) order in one block, and "
                            "these tensors are not contiguous (a transpose, an expand): .reshape(B * C, T) or "
                            ".flatten(0, 1) copy when they must") from error
    if not all(torch.equal(copy[k], batch[k]) for k in batch):
        raise ExerciseError(f"{name}: your function changed the batch; reshape without writing into it")
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        raise ExerciseError(f"{name}: return (logits, probs), two (B, C) = {(B, C)} tensors; received {short(got)}")
    logits, probs = (torch.as_tensor(x).detach().float() if not isinstance(x, torch.Tensor) else x.detach().float()
                     for x in got)
    for hint, wrong_logits, wrong_probs in _mistakes(batch, score):
        if logits.shape == (B, C) and not torch.allclose(logits, expected, atol=1e-5) and torch.allclose(
                logits, wrong_logits, atol=1e-5):
            raise ExerciseError(f"{name}: wrong logits\n  expected {expected.tolist()}\n  received {logits.tolist()}"
                                f"\n  hint: {hint}")
        if wrong_probs is not None and probs.shape == (B, C) and torch.allclose(probs, wrong_probs, atol=1e-5):
            raise ExerciseError(f"{name}: wrong probs, each column sums to 1: {probs.sum(0).tolist()}\n  hint: {hint}")
    expect_close(f"{name}: logits", logits, expected, hint="logits[b, c] is the scorer's number for question b, choice c")
    if probs.shape == expected.shape and not torch.isfinite(probs).all():  # expect_close cannot show where a nan is
        hint = (f"\n  hint: the logits are right and reach {expected.abs().max().item():.0f}; exp overflows float32 "
                "above about 88, so exp(z) / sum(exp(z)) is inf / inf: torch.softmax(logits, dim=-1) subtracts each "
                "row's largest logit first" if expected.abs().max() > 88 else "")
        raise ExerciseError(f"{name}: probs\n  expected {expected.softmax(-1).tolist()}\n  received {probs.tolist()}"
                            + hint)
    expect_close(f"{name}: probs", probs, expected.softmax(-1),
                 hint="probs = softmax of the logits over the C choices (dim -1)")


@lru_cache(maxsize=1)
def _course_case():
    folder = Path(__file__).resolve().parents[3] / COURSE_MODEL
    tokenizer = Tokenizer.from_pretrained(folder)
    torch.manual_seed(83)  # the new scorer vector V; the check only compares, so any V does
    quiet = logging.getLogger("minibert.checkpoint")
    level, _ = quiet.level, quiet.setLevel(logging.ERROR)  # "newly initialised: classifier" is expected here
    try:
        model = BertForMultipleChoice.from_pretrained(folder).eval()
    finally:
        quiet.setLevel(level)
    examples = load_task("next-sentence-choice", "dev")[:3]
    batch = collate(encode("choice", examples, tokenizer, max_seq_length=48), tokenizer.pad_token_id)
    batch = {k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")}  # (B, C, T) each

    def score(input_ids, token_type_ids, attention_mask):  # w · C, the pooled [CLS] of each row: (N,)
        with torch.no_grad():
            pooled = model.bert(input_ids, token_type_ids, attention_mask).pooler_output
            return model.classifier(pooled).squeeze(-1)
    with torch.no_grad():
        expected = model(**batch).logits
    return batch, score, expected


def _gradient_reaches_the_scorer(fn, batch):
    """The logits feed a training loss (cross-entropy over the choices), so a loss on them must train the
    scorer: a scorer with one weight w, a row's score w · (the sum of its real ids), and logits.sum()
    backpropagated gives w the sum over every row, as the scores themselves would."""
    w = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    scorer = _Scorer(lambda input_ids, token_type_ids, attention_mask: w * _sum_scorer(
        input_ids, token_type_ids, attention_mask).double())
    name = ("hand case (B, C, T) = (2, 3, 4), a scorer with a weight w = 0.5 (float64, requiring grad): a row's score "
            "= w · the sum of its real ids; logits.sum().backward()")
    got = call(fn, name, {k: v.clone() for k, v in batch.items()}, scorer)
    logits = got[0] if isinstance(got, (tuple, list)) and got else got
    expected = float(_sum_scorer(**{k: v.reshape(6, 4) for k, v in batch.items()}).sum())
    if not (isinstance(logits, torch.Tensor) and logits.requires_grad):
        raise ExerciseError(f"{name}: your logits do not require grad, so no gradient reaches the scorer's w (expected "
                            f"w.grad = {expected:g})\n  hint: put the scores back with tensor operations (.view, "
                            ".reshape, torch.stack), which keep the scorer's graph; a table of Python numbers "
                            "(.tolist(), .item()) made into a new tensor, or .detach(), cuts the logits off from it")
    call(lambda: logits.sum().backward(), f"{name}: the backward")
    if w.grad is None or abs(float(w.grad) - expected) > 1e-9 * abs(expected):
        raise ExerciseError(f"{name}: w.grad = {None if w.grad is None else float(w.grad)}, expected {expected:g} "
                            "(each row's score counted once)")


def choice_logits(fn) -> None:
    """fn(batch of (B, C, T) tensors, scorer(input_ids, token_type_ids, attention_mask) on (N, T) -> (N,))
    -> (logits (B, C), probs (B, C))."""
    cases = []
    for B, C, T in [(2, 3, 4), (3, 2, 5), (4, 4, 3)]:
        ids = torch.arange(B * C * T).view(B, C, T) % 7 + 1 + 10 * torch.arange(B * C).view(B, C, 1)
        mask = torch.ones_like(ids)
        mask[:, :, -1] = (torch.arange(B * C).view(B, C) % 2)  # some rows padded at the end
        batch = {"input_ids": ids, "token_type_ids": torch.zeros_like(ids), "attention_mask": mask}
        cases.append((f"hand case (B, C, T) = {(B, C, T)}, a row's score = the sum of its real ids", batch,
                      _sum_scorer, _sum_scorer(**{k: v.reshape(B * C, T) for k, v in batch.items()}).view(B, C)))
    batch, score, expected = _course_case()
    one = {k: v[1:2] for k, v in cases[0][1].items()}  # B = 1: one question, still a (1, C) result
    more = [("hand case (B, C, T) = (1, 3, 4), one question: a row's score = the sum of its real ids", one, _sum_scorer,
             _sum_scorer(**{k: v.reshape(3, 4) for k, v in one.items()}).view(1, 3))]
    # The first batch again, held choice by choice in memory: a (C, B, T) tensor transposed, as a batch made by
    # stacking each choice's rows is, so not contiguous (clone keeps those strides).
    apart = {k: v.transpose(0, 1).contiguous().transpose(0, 1) for k, v in cases[0][1].items()}
    more.append(("hand case (B, C, T) = (2, 3, 4) again, its tensors not contiguous in memory (a (C, B, T) tensor "
                 "transposed): a row's score = the sum of its real ids", apart, _sum_scorer, cases[0][3]))
    # The dict promises its keys, not their order: a scorer fed batch.values() in order reads the wrong tensors.
    reordered = {k: cases[0][1][k] for k in ("token_type_ids", "attention_mask", "input_ids")}
    more.append(("hand case (B, C, T) = (2, 3, 4) again, its keys in another order (token_type_ids, attention_mask, "
                 "input_ids): a row's score = the sum of its real ids", reordered, _sum_scorer, cases[0][3]))
    cases.append(("the course model's BertForMultipleChoice on 3 next-sentence-choice questions (B, C, T) = "
                  f"{tuple(batch['input_ids'].shape)}", batch, score, expected))
    for name, batch, score, expected in cases + more:
        _check(fn, name, batch, score, expected)
    _gradient_reaches_the_scorer(fn, cases[0][1])
    passed("choice_logits", f"{len(cases) - 1 + len(more)} hand-made batches (one of a single question, one not "
                            "contiguous in memory) and the course model's BertForMultipleChoice agree; the "
                            "gradient reaches the scorer")
