"""The checkers of exercises 6.1 (a head's offset score) and 6.2 (attention entropy), on token-level
attention (B, nh, T, T) with an attention mask (B, T): 1 at real tokens, 0 at padding."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch

from ..common import ExerciseError, call, minilm_model, minilm_tokenizer, passed, valid_lines


def _as_right_padded(mask):
    """The mask a learner who counts lengths assumes: each row's first mask.sum() positions real."""
    return (torch.arange(mask.shape[1])[None, :] < mask.sum(1, keepdim=True)).to(mask.dtype)


def _offset_ref(probs, mask, offset, *, keys=True, queries=True, sign=1, transpose=False, pooled=True,
                by_lengths=False, unclamped=False):
    """The pooled mean of probs[b, h, i, i + offset] over real (i, i + offset); the keyword arguments
    produce the usual mistakes."""
    B, nh, T, _ = probs.shape
    mask = _as_right_padded(mask) if by_lengths else mask
    i = torch.arange(T)
    j = i + sign * offset
    inside = (j >= 0) & (j < T)
    i, j = i[inside], j[inside]
    values = probs[:, :, j, i] if transpose else probs[:, :, i, j]  # (B, nh, P)
    real = mask.bool()
    valid = torch.ones(B, len(i), dtype=torch.bool)
    if queries:
        valid &= real[:, i]
    if keys:
        valid &= real[:, j]
    w = valid[:, None].to(probs.dtype)
    if unclamped:  # each sentence's pairs counted as its length minus |offset|, negative when shorter
        return (values * w).sum((0, 2)) / (mask.sum(1) - abs(offset)).sum()
    if pooled:
        return (values * w).sum((0, 2)) / valid.sum()
    return ((values * w).sum(2) / valid.sum(1, keepdim=True).clamp_min(1)).mean(0)  # (B, nh) -> (nh,)


def _entropy_ref(probs, mask, *, log=torch.log, queries=True, axis=-1, pooled=True, normalised=False,
                 by_lengths=False):
    mask = _as_right_padded(mask) if by_lengths else mask
    plogp = torch.where(probs > 0, probs * log(probs.clamp_min(1e-30)), torch.zeros(()))
    h = -plogp.sum(axis)  # (B, nh, T): one entropy per query (per key with axis=-2)
    if normalised:  # divided by its largest value, ln(number of real keys): 1 means uniform
        h = h / torch.log(mask.sum(1).to(probs.dtype)).clamp_min(1e-30)[:, None, None]
    valid = mask.bool() if queries else torch.ones_like(mask, dtype=torch.bool)
    w = valid[:, None].to(probs.dtype)
    if pooled:
        return (h * w).sum((0, 2)) / valid.sum()
    return ((h * w).sum(2) / valid.sum(1, keepdim=True)).mean(0)


def _random_case(g, B, nh, T, lengths, left=False):
    """Random attention over `lengths` real tokens per row, padded on the right (BERT's way) or, with
    `left`, on the left: the mask, not the lengths, says which tokens are real."""
    mask = (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).long()  # (B, T)
    if left:
        mask = mask.flip(1)
    scores = torch.randn(B, nh, T, T, generator=g, dtype=torch.float64) * 2
    scores = scores.masked_fill(~mask.bool()[:, None, None, :], float("-inf"))
    return scores.softmax(-1), mask  # padded keys get exactly 0, as in BERT


@lru_cache(maxsize=1)
def _minilm_case():
    batch = minilm_tokenizer()(list(valid_lines()[:3]), padding=True, truncation=True, max_length=40,
                               return_tensors="pt")
    with torch.no_grad():
        probs = minilm_model()(**batch, output_attentions=True).attentions[1].double()  # layer 1: (B, 12, T, T)
    return probs, batch["attention_mask"]


def _as_tensor(name, got, nh):
    if isinstance(got, (torch.Tensor, np.ndarray, list, tuple)):
        got = torch.as_tensor(np.asarray(got.detach().cpu() if isinstance(got, torch.Tensor) else got,
                                         dtype=np.float64))
        if got.shape == (nh,):
            return got
    shape = tuple(got.shape) if hasattr(got, "shape") else type(got).__name__
    raise ExerciseError(f"{name}: expected one number per head, shape ({nh},), received {shape}"
                        + ("\n  hint: average over the batch and the positions, not over the heads"
                           if getattr(got, "ndim", 1) == 0 else ""))


def _close(got, wanted, atol):
    return torch.allclose(got, wanted, atol=atol, rtol=1e-6)


def _check_all(fn, cases, *, signed=False) -> None:
    """Each case (name, probs, mask, args, expected, mistakes, atol) in order. At the first wrong one,
    the mistake named is the one the learner's output matches there and on every later case: two
    mistakes that give the same numbers on one case are told apart by the next, and a mistake is named
    only when the outputs prove it."""
    for k, (name, probs, mask, args, expected, mistakes, atol) in enumerate(cases):
        got = _run(fn, name, probs, mask, *args)
        if signed and got.lt(-1e-6).any() and _close(-got, expected, atol):  # every head's sign flipped
            raise ExerciseError(f"{name}: received {got.tolist()}, negative\n  hint: entropy is −Σ p ln p: "
                                "mind the minus sign")
        if _close(got, expected, atol):
            continue
        if torch.isnan(got).any():
            hint = "your result has NaN: a padded key has probability exactly 0, and 0 · log 0 must count as 0"
        else:
            alive = {h for h, wrong in mistakes if _close(got, wrong, atol)}
            for later_name, p, m, a, _, later_mistakes, later_atol in cases[k + 1:]:
                if not alive:  # even one candidate must hold on every later case: a coincidence here names nothing
                    break
                try:
                    later = _run(fn, later_name, p, m, *a)
                except ExerciseError:  # a later case that raises (a sentence with no pair: 0 / 0) tells nothing
                    continue
                alive &= {h for h, wrong in later_mistakes if _close(later, wrong, later_atol)}
            hint = alive.pop() if len(alive) == 1 else ""
        raise ExerciseError(f"{name}:\n  expected {[round(x, 6) for x in expected.tolist()]}\n  received "
                            f"{[round(x, 6) for x in got.tolist()]}" + (f"\n  hint: {hint}" if hint else ""))


def _run(fn, name, probs, mask, *args):
    p, m = probs.clone(), mask.clone()
    got = call(fn, name, p, m, *args)
    if not (torch.equal(p, probs) and torch.equal(m, mask)):
        raise ExerciseError(f"{name}: your function changed its input tensors; compute on copies "
                            "(e.g. `probs * mask` instead of `probs.mul_(mask)`)")
    return _as_tensor(name, got, probs.shape[1])


_BY_LENGTHS = ("this takes each row's first mask.sum() positions as its real tokens, as if every row were padded "
               "on the right; the mask itself says which tokens are real, wherever they are in the row")

_OFFSET_MISTAKES = [
    # Reading the opposite offset and reading probs[..., i + offset, i] pick the same entries: one mistake.
    ("this is the score at the opposite offset, the attention *from* token i + offset to token i: rows are "
     "queries and columns keys, so query i looks at key i + offset (offset -1: the previous token)", dict(sign=-1)),
    ("this counts padded positions: keep only pairs whose query and key are both real tokens",
     dict(keys=False, queries=False)),
    ("this counts pairs whose key is padding (probability 0): both the query and the key must be real",
     dict(keys=False)),
    ("this counts pairs whose query is padding: both the query and the key must be real", dict(queries=False)),
    ("this is a mean of per-sentence means; the score pools every valid pair of the batch, so a longer "
     "sentence counts for more pairs", dict(pooled=False)),
    (_BY_LENGTHS, dict(by_lengths=True)),
    ("the pairs were counted as each sentence's length minus |offset|: a sentence shorter than |offset| has no "
     "pair at that offset, 0 and not a negative count (max(0, L - |offset|)), or count the valid pairs themselves",
     dict(unclamped=True)),
]


def offset_score(fn) -> None:
    """fn(probs (B, nh, T, T), attention_mask (B, T), offset) -> (nh,) pooled mean of probs[b, h, i, i + offset]."""
    # Hand case: one head, T = 3, no padding. Previous token: rows 1 and 2 at columns 0 and 1.
    probs = torch.tensor([[[[0.5, 0.25, 0.25], [0.6, 0.3, 0.1], [0.1, 0.2, 0.7]]]], dtype=torch.float64)
    mask = torch.ones(1, 3, dtype=torch.long)
    cases = []

    def add(name, probs, mask, offset, expected):
        mistakes = [(h, _offset_ref(probs, mask, offset, **kw)) for h, kw in _OFFSET_MISTAKES]
        cases.append((name, probs, mask, (offset,), expected, mistakes, 1e-6))

    # Offset 0 is "any offset" too: the main diagonal, each token's attention to itself.
    for offset, expected in [(-1, (0.6 + 0.2) / 2), (1, (0.25 + 0.1) / 2), (2, 0.25), (-2, 0.1), (0, 0.5)]:
        add(f"hand case probs = {probs[0, 0].tolist()}, offset {offset}", probs, mask, offset,
            torch.tensor([expected], dtype=torch.float64))
    g = torch.Generator().manual_seed(61)
    # The fifth holds a sentence of 2 real tokens, shorter than the offset: it has no pair at all. The last is one
    # sentence, padded all the same: a batch of one still has its padding to leave out.
    shapes = [(2, 3, 6, [6, 4], -1), (3, 2, 7, [7, 3, 5], 1), (2, 4, 9, [5, 9], -2), (1, 2, 5, [5], 3),
              (3, 2, 6, [6, 2, 5], 3), (1, 3, 8, [5], -1)]
    for B, nh, T, lengths, offset in shapes:
        p, m = _random_case(g, B, nh, T, lengths)
        add(f"random case (B, nh, T) = {(B, nh, T)}, real lengths {lengths}, offset {offset}", p, m, offset,
            _offset_ref(p, m, offset))
    left = (1, -1, 0)
    for offset in left:  # padded on the left: the real tokens are wherever the mask says 1
        p, m = _random_case(g, 3, 2, 7, [7, 4, 5], left=True)
        add(f"random case (B, nh, T) = (3, 2, 7) padded on the LEFT, mask {m.tolist()}, offset {offset}", p, m,
            offset, _offset_ref(p, m, offset))
    p, m = _minilm_case()
    for offset in (-1, 1):
        add(f"all-MiniLM-L6-v2, layer 1, three padded sentences, offset {offset}", p, m, offset,
            _offset_ref(p, m, offset))
    _check_all(fn, cases)
    hand = sum(name.startswith("hand case") for name, *_ in cases)
    passed("offset_score", f"{hand} hand-computed offsets, {len(shapes) + len(left)} random padded batches "
                           f"({len(left)} padded on the left) and MiniLM's real attention agree")


_ENTROPY_MISTAKES = [
    ("this is in bits (log base 2); the entropy here is in nats, with the natural log", dict(log=torch.log2)),
    ("this is normalised (divided by ln of the number of keys, 1 = uniform); the exercise asks for the entropy "
     "itself, in nats", dict(normalised=True)),
    ("this averages over padded queries too: only real tokens' rows count", dict(queries=False)),
    ("this sums over the queries (dim -2); each row, one query's distribution over keys, has an entropy",
     dict(axis=-2)),
    ("this is a mean of per-sentence means; pool every real query of the batch", dict(pooled=False)),
    (_BY_LENGTHS, dict(by_lengths=True)),
]


def attention_entropy(fn) -> None:
    """fn(probs (B, nh, T, T), attention_mask (B, T)) -> (nh,) mean over real queries of -Σ p ln p."""
    # Hand case: two heads; head 0 spreads each row evenly over 4 keys (ln 4), head 1 looks at one key (0).
    # (Over 4 keys, not 2: in bits ln 4 is 2, normalised it is 1, so the two mistakes look different.)
    uniform, one_hot = torch.full((4, 4), 0.25, dtype=torch.float64), torch.eye(4, dtype=torch.float64)
    probs = torch.stack([uniform, one_hot])[None]  # (1, 2, 4, 4)
    mask = torch.ones(1, 4, dtype=torch.long)
    hand = [("hand case: head 0 uniform over 4 keys, head 1 one-hot", probs, mask, [math.log(4), 0.0])]
    # Uniform over 4 keys (ln 4) in the real row, a padded second row that must not count.
    pad = torch.tensor([[[[0.25] * 4 + [0.0], [0.25] * 4 + [0.0], [0.25] * 4 + [0.0], [0.25] * 4 + [0.0],
                          [1.0, 0.0, 0.0, 0.0, 0.0]]]], dtype=torch.float64)
    hand.append(("hand case: rows uniform over 4 real keys, 1 padded key and 1 padded query", pad,
                 torch.tensor([[1, 1, 1, 1, 0]]), [math.log(4)]))

    def case(name, p, m, expected, atol):
        return name, p, m, (), expected, [(h, _entropy_ref(p, m, **kw)) for h, kw in _ENTROPY_MISTAKES], atol

    cases = [case(name, p, m, torch.tensor(expected, dtype=torch.float64), 1e-6) for name, p, m, expected in hand]
    g = torch.Generator().manual_seed(62)
    shapes = [(2, 3, 6, [6, 4]), (3, 2, 7, [7, 3, 5]), (1, 4, 5, [5])]
    for B, nh, T, lengths in shapes:
        p, m = _random_case(g, B, nh, T, lengths)
        cases.append(case(f"random case (B, nh, T) = {(B, nh, T)}, real lengths {lengths}", p, m,
                          _entropy_ref(p, m), 1e-5))
    p, m = _random_case(g, 3, 2, 7, [7, 4, 5], left=True)  # the real queries are wherever the mask says 1
    cases.append(case(f"random case (B, nh, T) = (3, 2, 7) padded on the LEFT, mask {m.tolist()}", p, m,
                      _entropy_ref(p, m), 1e-5))
    p, m = _minilm_case()
    cases.append(case("all-MiniLM-L6-v2, layer 1, three padded sentences", p, m, _entropy_ref(p, m), 1e-5))
    _check_all(fn, cases, signed=True)
    passed("attention_entropy", f"{len(hand)} hand-computed cases, {len(shapes) + 1} random padded batches (1 "
                                "padded on the left) and MiniLM's real attention agree")
