"""What 2.2's checker compares a learner's attention with, and the mistakes it recognises: the
probabilities as written (float64), or as a known mistake writes them, and one case run and judged."""

from __future__ import annotations

import torch

from ..common import ExerciseError, short
from ._shared import SHAPE_ERRORS, _call_pure, _close, _diagnose, _expect

MIN = torch.finfo(torch.float64).min


def _pair(name, result):
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise ExerciseError(f"{name}: expected a pair (out, probs), received {short(result, 200)}")
    out, probs = result
    # The statement allows a wider dtype than q's (all in float64), but one dtype for both: a cast back
    # that reaches only one of them leaves out and probs disagreeing.
    if isinstance(out, torch.Tensor) and isinstance(probs, torch.Tensor) and out.dtype != probs.dtype:
        raise ExerciseError(f"{name}: out has dtype {out.dtype} and probs {probs.dtype}; they must share one dtype\n"
                            "  hint: a computation done in another dtype was cast back for one of them only: cast "
                            "both (out.to(q.dtype) too), or neither")
    return result


def _probs(q, k, key_mask=None, *, scale=None, dim=-1, where="keys", after=False, inverted=False, first=False):
    """Attention probabilities as written, or as a known mistake writes them (float64)."""
    q, k = q.double(), k.double()
    scores = q @ k.transpose(-2, -1) * (q.shape[-1] ** -0.5 if scale is None else scale)  # (B, nh, T_q, T_k)
    if key_mask is None:
        return scores.softmax(dim)
    m = key_mask.bool()
    if where == "prefix":  # each row's real keys counted, and the keys after them hidden: padding assumed on the right
        m, where = torch.arange(m.shape[-1]) < m.sum(-1, keepdim=True), "keys"
    m = ~m if inverted else m
    m = m[:1].expand_as(m) if first else m
    m = {"keys": m[:, None, None, :], "queries": m[:, None, :, None], "heads": m[:, None, :]}[where]
    if after:
        return scores.softmax(dim) * m
    return scores.masked_fill(~m, MIN).softmax(dim)


def _mistakes(q, k, key_mask):
    """(what the mistake gives, its message) for the mistakes learners make in this exercise."""
    nh, hs = q.shape[1], q.shape[-1]
    return [
        (lambda: _probs(q, k, key_mask, scale=1.0), "your scores are √d too large (not divided, or divided by "
                                                   "something that is 1 here, such as √nh with one head): divide "
                                                   "q·kᵀ by √d, d = hs = q.shape[-1]"),
        (lambda: _probs(q, k, key_mask, scale=1 / hs), "you divided the scores by d; divide by √d"),
        (lambda: _probs(q, k, key_mask, scale=(nh * hs) ** -0.5),
         "you divided by √(nh·hs), the square root of the hidden size H; d is the size of one head, "
         "hs = q.shape[-1]"),
        (lambda: _probs(q, k, key_mask, dim=-2), "your softmax normalises over the queries (axis -2); take it over "
                                                 "the keys, the last axis"),
        (lambda: _probs(q, k), "key_mask was not applied: padded keys must get probability 0"),
        (lambda: _probs(q, k, key_mask, where="queries"), "you masked the padded queries (rows) instead of the "
                                                          "padded keys (columns): key_mask[:, None, None, :]"),
        (lambda: _probs(q, k, key_mask, inverted=True), "your mask is inverted: True/1 marks a real token, which "
                                                        "must stay; hide the keys where key_mask is False/0"),
        (lambda: _probs(q, k, key_mask, first=True), "every sequence got the first sequence's mask; each sequence "
                                                     "b has its own row key_mask[b]"),
        (lambda: _probs(q, k, key_mask, where="heads"), "a (B, 1, T_k) mask lines up its B axis with the heads "
                                                        "(sequence h's mask went to head h); make it "
                                                        "(B, 1, 1, T_k)"),
        (lambda: _probs(q, k, key_mask, after=True), "you masked the probabilities after the softmax, so rows no "
                                                     "longer sum to 1; mask the scores before it"),
        (lambda: _probs(q, k, key_mask, where="prefix"), "you hid the keys after each row's count of real tokens, as "
                                                         "if padding were always at the end; here it is on the left: "
                                                         "hide exactly the keys where key_mask is False/0"),
    ]


def _check_probs(name, probs, expected, q, k, key_mask, hint):
    if isinstance(probs, torch.Tensor) and probs.shape == expected.shape and torch.isnan(probs).any():
        raise ExerciseError(f"{name}: your probabilities contain NaN\n  hint: a softmax over a row whose scores "
                            "are all -inf is 0/0 = NaN; fill masked scores with torch.finfo(scores.dtype).min (or "
                            "-10000), not -inf, and mask keys (columns), not queries (rows)")
    if isinstance(probs, torch.Tensor) and probs.shape == expected.shape and not _close(probs, expected, 1e-5):
        hint = _diagnose(probs, _mistakes(q, k, key_mask)) or hint
    _expect(name + ", probs", probs, expected, hint=hint)


def _case(fn, name, q, k, v, key_mask, expected_probs, expected_out, hint):
    args = (q, k, v) + (() if key_mask is None else (key_mask,))
    out, probs = _pair(name, _call_pure(fn, name, SHAPE_ERRORS, *args))
    _check_probs(name, probs, expected_probs, q, k, key_mask, hint)
    _expect(name + ", out", out, expected_out, hint="out = probs @ v: row i is query i's probability-weighted "
                                                    "average of the value rows")
