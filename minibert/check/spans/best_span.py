"""The checker of exercise 8.2: the best answer span of one window, score S·T_i + E·T_j = start_i + end_j,
with j ≥ i, both ends in the passage, and at most `max_answer_length` tokens (j - i + 1 ≤ max), as
`minibert.heads.question_answering.best_spans` finds it (§4.2), in the logits' own dtype: a window in float16
(no finite fill beyond 65504) and one in float64 (whose best spans tie in float32)."""

from __future__ import annotations

import math
import warnings

import torch

from ...heads.question_answering import best_spans
from ..common import ExerciseError, short, as_float, call, passed


def _search(start, end, mask, max_len, *, backwards=False, no_limit=False, one_more=False, mask_ends="both",
            greedy=False):
    """(i, j, score) by brute force; the keyword arguments make the usual mistakes."""
    T, best = len(start), (None, None, -math.inf)
    if greedy:  # the best start first, then the best end allowed after it
        i = max((t for t in range(T) if mask[t]), key=lambda t: start[t])
        j = max((t for t in range(i, min(T, i + max_len)) if mask[t]), key=lambda t: end[t])
        return i, j, float(start[i] + end[j])
    limit = math.inf if no_limit else max_len + (1 if one_more else 0)
    for i in range(T):
        for j in range(T):
            if (j < i and not backwards) or j - i + 1 > limit:
                continue
            if mask_ends in ("both", "start") and not mask[i] or mask_ends == "both" and not mask[j]:
                continue
            if start[i] + end[j] > best[2]:
                best = (i, j, float(start[i] + end[j]))
    return best


MISTAKES = [
    ("an end before its start (j < i); the span needs j ≥ i. (Taking the arg-max of the start and of the end "
     "apart does this.)", dict(backwards=True)),
    ("a span longer than max_answer_length; keep j - i + 1 ≤ max_answer_length", dict(no_limit=True)),
    ("a span of max_answer_length + 1 tokens: off by one in the limit; the span (i, j) has j - i + 1 tokens, "
     "so the test is j - i + 1 ≤ max_answer_length (j - i < max_answer_length)", dict(one_more=True)),
    ("a span outside the passage ([CLS], the question or [SEP]); both ends must be where context_mask is True",
     dict(mask_ends="none")),
    ("the end may fall outside the passage (on [SEP] or the question); mask the end as well as the start",
     dict(mask_ends="start")),
    ("the best start first, then the best end after it: the best pair need not contain the best start; compare "
     "every allowed pair's start_logits[i] + end_logits[j]", dict(greedy=True)),
]

# (start logits, end logits, passage positions (first, last) or a list of them, max_answer_length, lesson);
# [CLS] is position 0.
HAND = [
    ([0, 0, 0, 0, 0.5, 0, 3, 0], [0, 0, 0, 0, 2, 0.5, 0, 0], (4, 6), 30,
     "the arg-maxes are start 6 and end 4; the best span with j ≥ i is (6, 6), 3.0"),
    ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 3, 0, 0, 4.5, 0], (3, 8), 2,
     "(3, 8) scores 8.5 and (3, 5) 7.0, but at most 2 tokens: (3, 4), 5.0"),
    ([5, 4, 0, 0, 1, 0, 0, 0], [5, 0, 4, 0, 0, 2, 0, 3], (4, 6), 30,
     "[CLS] (0, 0) scores 10, the question (1, 2) 8 and (4, 7) ends on [SEP]: the passage's best is (4, 5), 3.0"),
    ([5, 4, 0, 0, 1, 0, 0, 0], [5, 0, 4, 0, 0, 2, 0, 3], (4, 6), 1,
     "the window above again (as long), with max_answer_length=1: one-token spans only, (5, 5), 2.0"),
    ([0, 0, 0, 1, 0], [0, 0, 0, 0, 2], (3, 4), 30,
     "a passage that runs to the window's last token (no [SEP] or padding after it): (3, 4), 3.0"),
    ([-1, -2, -3, -5, -4, -6, -2, -1], [-1, -3, -2, -6, -5, -4, -3, -1], (3, 6), 30,
     "every score is negative, as logits often are: the best span still exists, (6, 6) at -5.0"),
    ([0, 0, 0, -3e9, -1e9, -2e9, 0], [0, 0, 0, -2e9, -3e9, -1e9, 0], (3, 5), 30,
     "logits as low as -3e9: a forbidden pair filled with -1e4 or -1e9 outscores every allowed one (-2e9 at best, "
     "(4, 5)); fill with float('-inf')"),
    ([0] + [5] * 24 + [0] + [1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0] + [0],
     [0] + [5] * 24 + [0] + [0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 1, 0] + [0], (26, 38), 30,
     "the 24 question tokens have the highest logits, so the 20 best starts and the 20 best ends all lie in the "
     "question: a search among them finds no allowed span; the passage's best is (30, 32), 4.0"),
    ([0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 5, 0, 0, 0, 0], [(3, 5), (7, 9)], 30,
     "two paragraphs in one window with a [SEP] at 6 between them: the mask, not its first and last True, says "
     "where an end may fall; (3, 6) ends on that [SEP], the best allowed is (3, 4), 3.0"),
]
# (start, end, passage (first, last), max_answer_length, dtype, lesson): logits as a model run in another
# precision gives them. The float64 window's expected span is the exact search's: minibert's best_spans adds
# the logits in float32, where its two best spans tie.
DTYPES = [
    ([0, 0, 0, 0, 0.5, 0, 3, 0], [0, 0, 0, 0, 2, 0.5, 0, 0], (4, 6), 30, torch.float16,
     "the worked example in float16, as a model run in half precision gives it: (6, 6), 3.0"),
    ([0, 0, 0, 0, 1, 0, 3 + 1e-9, 0], [0, 0, 0, 0, 2, 0.5, 0, 0], (4, 6), 30, torch.float64,
     "float64 logits: (4, 4) scores 3 and (6, 6) 3 + 1e-9, a difference float32 rounds away; (6, 6) is the best"),
]
ALL_NEGATIVE = ("every span scores below 0 here: start the search from -inf (or from the first allowed span), "
                "not from 0, or no span ever beats the starting value")


def _unpack(name, got):
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        raise ExerciseError(f"{name}: return a tuple (i, j, score), received {short(got)}")
    i, j, score = got
    try:
        i, j = int(i), int(j)
    except (TypeError, ValueError):
        raise ExerciseError(f"{name}: i and j must be token positions (ints), received {short(got)}") from None
    score, problem = as_float(score)
    if problem:
        raise ExerciseError(f"{name}: the score {problem}")
    return i, j, score


def _call(fn, name, s, e, m, max_len):
    try:
        return call(fn, name, s, e, m, max_len)
    except ExerciseError as error:  # a fill value the logits' dtype cannot hold
        if "without overflow" not in str(error):
            raise
        raise ExerciseError(f"{error}\n  hint: the logits are {s.dtype}, which cannot hold your fill value (float16 "
                            "holds numbers up to ±65504, not torch.finfo(torch.float32).min or -1e9): fill with "
                            "float('-inf'), which every float dtype holds") from error


def _check(fn, name, start, end, mask, max_len):
    s, e, m = start.clone(), end.clone(), mask.clone()
    got = _call(fn, name, s, e, m, max_len)
    negative = _search(start.tolist(), end.tolist(), mask.tolist(), max_len)[2] < 0
    if negative and isinstance(got, (tuple, list)) and len(got) == 3 and (got[0] is None or got[2] == 0):
        raise ExerciseError(f"{name}: received {short(got)}\n  hint: {ALL_NEGATIVE}")
    i, j, score = _unpack(name, got)
    if not (torch.equal(s, start) and torch.equal(e, end) and torch.equal(m, mask)):
        raise ExerciseError(f"{name}: your function changed its inputs; work on copies (masked_fill, not masked_fill_)")
    ref_score, ref_i, ref_j = best_spans(start[None], end[None], max_answer_length=max_len, n_best=1,
                                         allowed=mask[None])[0][0]
    exact = _search(start.tolist(), end.tolist(), mask.tolist(), max_len)
    if start.dtype == torch.float64:  # best_spans adds in float32; the exact search keeps float64's digits
        ref_i, ref_j, ref_score = exact
    assert exact[:2] == (ref_i, ref_j)  # keeps the checker honest
    if (i, j) == (ref_i, ref_j) and math.isclose(score, ref_score, rel_tol=1e-5, abs_tol=1e-5):
        return
    allowed = 0 <= i <= j < len(start) and j - i + 1 <= max_len and bool(mask[i]) and bool(mask[j])
    in_float32 = _search(start.float().tolist(), end.float().tolist(), mask.tolist(), max_len)[:2]
    if (i, j) == (ref_i, ref_j):
        hint = "the right span, the wrong score: the score is start_logits[i] + end_logits[j]"
    elif start.dtype == torch.float64 and (i, j) == in_float32 != (ref_i, ref_j):
        hint = (f"({i}, {j}) is the best once the logits are rounded to float32, where it ties with "
                f"({ref_i}, {ref_j}); these are float64: compute in the logits' own dtype (no .float())")
    elif not allowed and 0 <= i < len(start) and 0 <= j < len(start) and score > ref_score and not math.isclose(
            score, float(start[i] + end[j]), rel_tol=1e-5, abs_tol=1e-5):
        hint = (f"({i}, {j}) is not allowed, and {score:.4g} is not its score start[{i}] + end[{j}]: it is the value "
                "your forbidden pairs were filled with, which beats the allowed ones here; fill with float('-inf')")
    else:
        hint = next((h for h, kw in MISTAKES
                     if _search(start.tolist(), end.tolist(), mask.tolist(), max_len, **kw)[:2] == (i, j)), "")
    raise ExerciseError(f"{name}:\n  expected (i, j, score) = ({ref_i}, {ref_j}, {ref_score:.4g})\n  received "
                        f"({i}, {j}, {score:.4g})" + (f"\n  hint: {hint}" if hint else ""))


def _straight_from_a_model(fn):
    """The worked example, its logits requiring grad as a model's outputs do when it was not run under
    torch.no_grad() (a training loop's evaluation, say): the search reads their values all the same."""
    start, end = (torch.tensor(x, requires_grad=True) for x in ([0, 0, 0, 0, 0.5, 0, 3, 0], [0, 0, 0, 0, 2, 0.5, 0, 0]))
    mask = (torch.arange(8) >= 4) & (torch.arange(8) <= 6)
    name = "the worked example again, its logits requiring grad (a model's outputs outside torch.no_grad())"
    try:
        with warnings.catch_warnings():  # float() of a score that requires grad warns; the value is what counts here
            warnings.filterwarnings("ignore", "Converting a tensor with requires_grad=True to a scalar")
            _check(fn, name, start, end, mask, 30)
    except ExerciseError as e:
        if "requires grad" not in str(e):
            raise
        raise ExerciseError(f"{e}\n  hint: logits that require grad refuse .numpy(); take their values with "
                            ".detach() first (.detach().numpy()), which copies nothing") from e


def best_span(fn) -> None:
    """fn(start_logits (T,), end_logits (T,), context_mask (T,) bool, max_answer_length) -> (i, j, score)."""
    for start, end, blocks, max_len, lesson in HAND:
        T, blocks = len(start), blocks if isinstance(blocks, list) else [blocks]
        mask = torch.zeros(T, dtype=torch.bool)
        for a, b in blocks:
            mask[a:b + 1] = True
        where = " and ".join(f"{a}..{b}" for a, b in blocks)
        name = f"hand case start={start}, end={end}, passage tokens {where}, max_answer_length={max_len} ({lesson})"
        _check(fn, name, torch.tensor(start, dtype=torch.float), torch.tensor(end, dtype=torch.float), mask, max_len)
    _straight_from_a_model(fn)
    for start, end, (a, b), max_len, dtype, lesson in DTYPES:
        mask = (torch.arange(len(start)) >= a) & (torch.arange(len(start)) <= b)
        name = (f"hand case start={start}, end={end} in {str(dtype).removeprefix('torch.')}, passage tokens {a}..{b}, "
                f"max_answer_length={max_len} ({lesson})")
        _check(fn, name, torch.tensor(start, dtype=dtype), torch.tensor(end, dtype=dtype), mask, max_len)
    g = torch.Generator().manual_seed(82)
    n = 0
    for T, max_len in [(12, 3), (20, 1), (30, 5), (16, 30), (40, 4), (25, 2), (64, 30), (33, 7), (384, 30)]:
        for _ in range(3):
            q = int(torch.randint(1, T // 3, (), generator=g))  # [CLS] + q question tokens + [SEP], then the passage
            padded = int(torch.randint(0, T // 4, (), generator=g))
            mask = (torch.arange(T) >= q + 2) & (torch.arange(T) < T - 1 - padded)
            start, end = torch.randn(T, generator=g) * 3, torch.randn(T, generator=g) * 3
            start[0], end[0] = start.max() + 1, end.max() + 1  # a confident [CLS] ("no answer") must not be chosen
            _check(fn, f"random case T={T}, question {q} tokens, passage {int(mask.sum())} tokens, "
                       f"max_answer_length={max_len}", start, end, mask, max_len)
            n += 1
    passed("best_span", f"{len(HAND) + len(DTYPES) + 1} hand-computed windows (one in float16, one in float64, one "
                        f"requiring grad) and {n} random ones agree with minibert.heads.question_answering.best_spans "
                        "(the float64 one with an exact search, as best_spans adds in float32)")
