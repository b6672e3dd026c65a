"""The checker of exercise 2.2: softmax(q kᵀ / √hs) v for queries and keys of any lengths, with
padded keys masked (a (B, T_k) boolean or 0/1 key mask)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ...config import BertConfig
from ...model import SelfAttention
from ..common import ExerciseError, expect_close, expect_same_gradients, passed
from ._shared import SHAPE_ERRORS, _call_pure, _close, _model, _rounded, _t
from .scaled_extremes import _float64
from .scaled_mistakes import _case, _check_probs, _pair

L3 = math.log(3)
# Case 2's probabilities: sequence 0 with its [PAD] key masked, and the same heads unmasked.
MASKED = [[3 / 4, 1 / 4, 0], [1 / 2, 1 / 2, 0], [3 / 4, 1 / 4, 0]]
FULL = [[3 / 7, 1 / 7, 3 / 7], [1 / 5, 1 / 5, 3 / 5], [3 / 7, 1 / 7, 3 / 7]]


def scaled_attention(fn) -> None:
    """Check `fn(q, k, v, key_mask=None) -> (out, probs)`: five cases worked out by hand, each
    catching its own mistakes, then random ones against F.scaled_dot_product_attention."""
    hand = (_two_tokens, _a_padded_key, _sequences_and_heads, _one_query, _all_padding)
    for case in hand:
        case(fn)
    random = _random_cases(fn)
    _all_padding(fn, torch.float16)
    _negative_scores_in_half(fn)
    _large_scores(fn)
    _float64(fn)
    _gradients(fn)
    passed("scaled_attention", f"{len(hand) + 4} hand-computed cases (two in float16) and {random} random "
                               "ones agree with minibert and F.scaled_dot_product_attention, gradients included")


def _padded():
    """Case 1's two tokens plus a [PAD] one: q2 = q0, k2 = [1, 1, 1, 1], v2 = [100, 100, 100, 100]."""
    q = _t([[[[L3, L3, 0, 0], [L3, L3, L3, L3], [L3, L3, 0, 0]]]])
    k = _t([[[[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]]]])
    v = _t([[[[4, 0, 8, 1], [0, 4, 0, 1], [100, 100, 100, 100]]]])
    return q, k, v


def _two_tokens(fn) -> None:
    # 1. B = nh = 1, T = 2, hs = 4, so √d = 2. Keys k0 = [1, 1, 0, 0], k1 = [0, 0, 1, 1]; queries
    #    q0 = [ln3, ln3, 0, 0], q1 = [ln3, ln3, ln3, ln3]. Raw scores q·k: [[2 ln3, 0], [2 ln3, 2 ln3]];
    #    / √d: [[ln3, 0], [ln3, ln3]]; softmax per row: [3/4, 1/4] (e^ln3 = 3) and [1/2, 1/2].
    #    Values v0 = [4, 0, 8, 1], v1 = [0, 4, 0, 1]: out0 = 3/4 v0 + 1/4 v1 = [3, 1, 6, 1], out1 = [2, 2, 4, 1].
    #    Mistakes: no scaling: rows [9/10, 1/10], [1/2, 1/2]. Divided by d = 4: row 0 is softmax([ln3/2, 0])
    #    = [√3, 1]/(√3 + 1). Softmax over the queries (columns sum to 1): [[1/2, 1/4], [1/2, 3/4]].
    #    k @ qᵀ (scores transposed): softmax of [[ln3, ln3], [0, ln3]] = [[1/2, 1/2], [1/4, 3/4]].
    q = _t([[[[L3, L3, 0, 0], [L3, L3, L3, L3]]]])
    k = _t([[[[1, 1, 0, 0], [0, 0, 1, 1]]]])
    v = _t([[[[4, 0, 8, 1], [0, 4, 0, 1]]]])
    name = ("q = [[ln 3, ln 3, 0, 0], [ln 3, ln 3, ln 3, ln 3]], k = [[1, 1, 0, 0], [0, 0, 1, 1]], "
            "v = [[4, 0, 8, 1], [0, 4, 0, 1]] (B = 1, nh = 1, T = 2, hs = 4), key_mask None")
    out, probs = _pair(name, _call_pure(fn, name, SHAPE_ERRORS, q, k, v))
    r3 = math.sqrt(3)
    if isinstance(probs, torch.Tensor) and _close(probs, _t([[[[1 / 2, 1 / 2], [1 / 4, 3 / 4]]]])):
        raise ExerciseError(f"{name}: received probs {_rounded(probs)}\n  hint: your scores are transposed: "
                            "scores[i, j] = q_i · k_j, that is q @ k.transpose(-2, -1), of shape (B, nh, T_q, T_k)")
    if isinstance(probs, torch.Tensor) and _close(probs, _t([[[[r3 / (r3 + 1), 1 / (r3 + 1)], [1 / 2, 1 / 2]]]])):
        raise ExerciseError(f"{name}: received probs {_rounded(probs)}\n  hint: you divided the scores by d = hs = "
                            "4; divide by √d = 2")
    _case(fn, name, q, k, v, None, _t([[[[3 / 4, 1 / 4], [1 / 2, 1 / 2]]]]), _t([[[[3, 1, 6, 1], [2, 2, 4, 1]]]]),
          "probs = softmax(q @ kᵀ / √hs) over the last axis (the keys)")


def _a_padded_key(fn) -> None:
    # 2. Case 1 plus a third token, [PAD], with key_mask [[True, True, False]]: k2 = [1, 1, 1, 1],
    #    v2 = [100, 100, 100, 100], and q2 = q0. Key 2 must get probability 0 from every query, so
    #    the rows are those of case 1: [3/4, 1/4, 0], [1/2, 1/2, 0], and for q2 = q0: [3/4, 1/4, 0].
    #    Mistakes. Key 2 not masked: scaled scores q·k2/2 = ln3 for q0 and q2, 2 ln3 for q1, so rows
    #    [3, 1, 3]/7, [3, 3, 9]/15, [3, 1, 3]/7. The padded query's row masked instead: row 2 uniform (finite
    #    fill) or NaN (-inf). Score set to 0 (masked_fill with 0, or scores times the mask): rows
    #    softmax([ln3, 0, 0]) = [3/5, 1/5, 1/5], [3/7, 3/7, 1/7], [3/5, 1/5, 1/5]. Inverted: all on key 2.
    q, k, v = _padded()
    key_mask = torch.tensor([[True, True, False]])
    name = ("the two tokens of the first case plus a [PAD] token: q2 = q0, k2 = [1, 1, 1, 1], "
            "v2 = [100, 100, 100, 100], key_mask [[True, True, False]]")
    out, probs = _pair(name, _call_pure(fn, name, SHAPE_ERRORS, q, k, v, key_mask))
    if isinstance(probs, torch.Tensor) and _close(probs, _t([[[[3 / 5, 1 / 5, 1 / 5], [3 / 7, 3 / 7, 1 / 7],
                                                                 [3 / 5, 1 / 5, 1 / 5]]]])):
        raise ExerciseError(f"{name}: received probs {_rounded(probs)}\n  hint: the [PAD] key (column 2) gets "
                            "probability: its score was set to 0, and exp(0) is not 0; fill masked scores with a "
                            "large negative number, torch.finfo(scores.dtype).min, instead of 0 or multiplying by "
                            "the mask")
    _case(fn, name, q, k, v, key_mask, _t([[[[3 / 4, 1 / 4, 0], [1 / 2, 1 / 2, 0], [3 / 4, 1 / 4, 0]]]]),
          _t([[[[3, 1, 6, 1], [2, 2, 4, 1], [3, 1, 6, 1]]]]),
          "every query (padded ones included) must give the [PAD] key probability exactly 0; the mask hides keys, "
          "the columns of the (T_q, T_k) scores")


def _sequences_and_heads(fn) -> None:
    # 3. Two sequences × two heads, every head a copy of case 2's tensors: sequence 0 with key_mask
    #    [True, True, False] (rows of case 2), sequence 1 with no padding (the unmasked rows [3, 1, 3]/7,
    #    [1, 1, 3]/5, [3, 1, 3]/7). A mask that lines sequences up with heads, or uses sequence 0's mask
    #    everywhere, or a scale of √(nh·hs) = √8 instead of √hs = 2, gives other numbers.
    q2, k2, v2 = (t.expand(2, 2, 3, 4).clone() for t in _padded())
    key_mask = torch.tensor([[True, True, False], [True, True, True]])
    expected = _t([[MASKED, MASKED], [FULL, FULL]])
    name = ("B = 2 sequences × nh = 2 heads, each head holding the tensors of case 2; key_mask "
            "[[True, True, False], [True, True, True]]")
    _case(fn, name, q2, k2, v2, key_mask, expected, expected.double() @ v2.double(),
          "sequence b is masked by its own row key_mask[b], in every head: key_mask[:, None, None, :]")


def _one_query(fn) -> None:
    # 4. Cross-attention shapes: one query (q1 of case 1) against the three keys of case 2, key 2 padded:
    #    probs [[1/2, 1/2, 0]] of shape (1, 1, 1, 3), out [[2, 2, 4, 1]]. Code that assumes T_q == T_k fails.
    q1 = _t([[[[L3, L3, L3, L3]]]])
    _, k, v = _padded()
    name = "one query q = [[ln 3, ln 3, ln 3, ln 3]] (T_q = 1) against the three keys of case 2 (T_k = 3)"
    _case(fn, name, q1, k, v, torch.tensor([[True, True, False]]), _t([[[[1 / 2, 1 / 2, 0]]]]),
          _t([[[[2, 2, 4, 1]]]]), "probs has shape (B, nh, T_q, T_k): one row per query, one column per key")


NO_MASK_HINT = ("key_mask is None here and T_q ≠ T_k: whatever stands in for the missing mask must broadcast against "
                "the (B, nh, T_q, T_k) scores, one column per key (T_k = k.shape[-2]), not one per query (q.shape[-2])")

HALF_ERRORS = {"without overflow": (
    "float16's largest number is 65,504, so a fill such as -1e9 (or float32's min) does not fit in it; take the fill "
    "from the scores' own dtype, torch.finfo(scores.dtype).min")}


def _all_padding(fn, dtype=torch.float32) -> None:
    # 5. A sequence that is all padding (it happens with a filler row of a batch): its probabilities are
    #    never read, but they must not be NaN, which would spread through every later layer.
    # 6. (after the random cases) The same in float16, as under mixed precision. Its largest number is
    #    65,504: masked_fill refuses a fill such as -1e9 ("cannot be converted ... without overflow"), and
    #    arithmetic turns it into -inf, which gives the all-padding row NaN (and 0 · -inf = NaN elsewhere).
    key_mask = torch.tensor([[True, True, False], [False, False, False]])
    q2, k2, v2 = (t.expand(2, 2, 3, 4).to(dtype) for t in _padded())
    name = ("B = 2, the second sequence all padding: key_mask [[True, True, False], [False, False, False]]"
            + (", q, k and v in float16" if dtype is torch.float16 else ""))
    out, probs = _pair(name, _call_pure(fn, name, {**SHAPE_ERRORS, **HALF_ERRORS}, q2, k2, v2, key_mask))
    for what, t in (("probs", probs), ("out", out)):
        if isinstance(t, torch.Tensor) and not torch.isfinite(t).all():
            hint = ("-inf in every score of a row gives softmax 0/0 = NaN; fill with torch.finfo(scores.dtype).min "
                    "(or -10000): padded keys still get exactly 0")
            if dtype is torch.float16:
                hint = ("float16's largest number is 65,504: a fill such as -1e9 (or float32's min) becomes -inf in "
                        "float16, and a row of -inf gives softmax 0/0 = NaN; take the fill from the scores' own "
                        "dtype, torch.finfo(scores.dtype).min")
            raise ExerciseError(f"{name}: your {what} contain NaN or inf for the all-padding sequence\n  hint: "
                                + hint)
    if dtype is torch.float32:
        _check_probs(name, probs[:1] if isinstance(probs, torch.Tensor) else probs, _t([[MASKED, MASKED]]), q2[:1],
                     k2[:1], key_mask[:1], "the first sequence must be unchanged by the second")
    else:
        expect_close(name + ", probs of the first sequence", probs[:1].float(), _t([[MASKED, MASKED]]), atol=2e-3)


def _negative_scores_in_half(fn) -> None:
    # 7. float16 again, every score -20 (q = -10 everywhere, k = 1 everywhere, hs = 4: q·k / 2 = -20), the
    #    second sequence all padding. Filling a masked score with finfo.min gives -65504, which fits; adding
    #    finfo.min to it gives -65524, past float16's largest negative number: -inf, and the all-padding row's
    #    softmax is 0/0 = NaN. The first sequence's rows are [1/2, 1/2, 0].
    q = torch.full((2, 1, 3, 4), -10.0, dtype=torch.float16)
    k = torch.ones(2, 1, 3, 4, dtype=torch.float16)
    v = torch.arange(24, dtype=torch.float16).view(2, 1, 3, 4)
    key_mask = torch.tensor([[True, True, False], [False, False, False]])
    name = ("float16, every score -20 (q = -10 and k = 1 everywhere, hs = 4), B = 2, the second sequence all "
            "padding: key_mask [[True, True, False], [False, False, False]]")
    out, probs = _pair(name, _call_pure(fn, name, {**SHAPE_ERRORS, **HALF_ERRORS}, q, k, v, key_mask))
    for what, t in (("probs", probs), ("out", out)):
        if isinstance(t, torch.Tensor) and not torch.isfinite(t).all():
            raise ExerciseError(f"{name}: your {what} contain NaN or inf\n  hint: -20 + finfo(float16).min is "
                                "-65524, past float16's largest negative number (-65504), so it becomes -inf, and "
                                "a row of -inf gives softmax 0/0 = NaN: replace the masked scores "
                                "(scores.masked_fill(~mask, torch.finfo(scores.dtype).min)) instead of adding the "
                                "fill to them")
    # float16's spacing is 1/64 at 19: exp(score - logsumexp) in float16, a correct way, is 0.3% off here.
    expect_close(name + ", probs of the first sequence", probs[:1].float(),
                 _t([[[[1 / 2, 1 / 2, 0]] * 3]]), atol=1e-2)


def _large_scores(fn) -> None:
    # 8. Scores far from 0: hs = 1, q = [[60]], keys [[1], [0.9]], so the scores are 60 and 54 and the
    #    probabilities 1 / (1 + e^-6) = 0.99753 and 0.00247. softmax subtracts the largest score itself;
    #    clamping the scores (to [-50, 50], say) to keep exp finite makes them equal: [0.5, 0.5].
    q, k, v = _t([[[[60.0]]]]), _t([[[[1.0], [0.9]]]]), _t([[[[1.0], [0.0]]]])
    p0 = 1 / (1 + math.exp(-6))
    name = "large scores: hs = 1, q = [[60]], k = [[1], [0.9]] (scores 60 and 54), v = [[1], [0]], key_mask None"
    _case(fn, name, q, k, v, None, _t([[[[p0, 1 - p0]]]]), _t([[[[p0]]]]),
          "softmax(x) = softmax(x - max x): torch's softmax stays finite for any scores, so nothing needs clamping; "
          "a clamp flattens every score beyond it")


def _gradients(fn) -> None:
    """A layer learns through this function: the gradients of a loss must reach q, k and v as they reach them
    through F.scaled_dot_product_attention (probs are returned for plotting, out is what the layer uses)."""
    g = torch.Generator().manual_seed(22)
    q, k, v = (torch.randn(2, 2, 4, 8, generator=g, dtype=torch.float64) for _ in range(3))
    key_mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    name = "B = 2, nh = 2, T = 4, hs = 8 in float64, q, k and v requiring grad, the loss (out * w).sum()"
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    out, _ = _pair(name, _call_pure(fn, name, SHAPE_ERRORS, *leaves, key_mask))
    if not (isinstance(out, torch.Tensor) and out.requires_grad):
        raise ExerciseError(f"{name}: out does not require grad, so no gradient reaches q, k or v\n  hint: compute "
                            "out from probs that are still in autograd's graph (no .detach(), .data or "
                            "torch.no_grad() on the way)")
    ref = [t.clone().requires_grad_() for t in (q, k, v)]
    expect_same_gradients(name, out, F.scaled_dot_product_attention(*ref, attn_mask=key_mask[:, None, None, :]),
                          zip("qkv", leaves, ref), against="F.scaled_dot_product_attention", seed=22, atol=1e-8,
                          hint=lambda what: "out must be probs @ v" if what == "v" else (
                              "probs were detached (or computed without a graph) before out = probs @ v: only v's "
                              "gradient is left"))


def _random_cases(fn) -> int:
    """The random cases; returns how many passed."""
    # Compared with F.scaled_dot_product_attention (out; and probs, as its output for v = the
    # identity matrix) and with the explicit path of minibert's SelfAttention (probs).
    random = 0
    for seed, (B, nh, Tq, Tk, hs, lengths, kind, dtype) in enumerate([
            (2, 3, 4, 6, 8, None, None, torch.float32),  # no mask, T_q ≠ T_k: a mask made up must have T_k columns
            (3, 2, 6, 6, 16, [6, 4, 2], torch.long, torch.float32),
            (3, 4, 7, 7, 6, [7, 5, 1], torch.bool, torch.float32),
            (3, 3, 4, 9, 8, [9, 3, 6], torch.bool, torch.float32),
            (2, 2, 6, 3, 4, [3, 2], torch.long, torch.float64),
            (3, 2, 4, 7, 8, [-7, -4, -2], torch.bool, torch.float32)]):  # a negative length: padded on the left
        g = torch.Generator().manual_seed(100 + seed)
        mask = None if lengths is None else (torch.arange(Tk)[None, :] < torch.tensor(lengths).abs()[:, None])
        if lengths is not None and min(lengths) < 0:
            mask = mask.flip(-1)  # (B, T_k), the real tokens at the end, as left-padding tokenizers put them
        attn_mask = None if mask is None else mask[:, None, None, :]  # (B, 1, 1, T_k), True = may attend
        minibert_probs = None
        if kind is torch.bool and Tq == Tk:  # q, k, v from a minibert SelfAttention, with its probabilities
            attn = _model(BertConfig(hidden_size=nh * hs, num_attention_heads=nh), SelfAttention, seed)
            x = torch.randn(B, Tq, nh * hs, generator=g)
            with torch.no_grad():
                q, k, v = (attn.split_heads(lin(x)) for lin in (attn.query, attn.key, attn.value))
                minibert_probs = attn(x, attn_mask, need_probs=True)[1]
            source = "q, k, v from minibert's SelfAttention, compared with its probabilities and with SDPA"
        else:
            q = 1.5 * torch.randn(B, nh, Tq, hs, generator=g, dtype=dtype)
            k = 1.5 * torch.randn(B, nh, Tk, hs, generator=g, dtype=dtype)
            v = torch.randn(B, nh, Tk, hs, generator=g, dtype=dtype)
            source = "compared with F.scaled_dot_product_attention"
        with torch.no_grad():
            expected_out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
            eye = torch.eye(Tk, dtype=dtype).expand(B, nh, Tk, Tk)
            expected_probs = F.scaled_dot_product_attention(q, k, eye, attn_mask=attn_mask)
        if minibert_probs is not None:
            assert torch.allclose(expected_probs, minibert_probs, atol=1e-6)
        key_mask = None if mask is None else mask.to(kind)
        masked = "no key_mask" if mask is None else f"key_mask of dtype {kind} with real lengths {lengths}"
        if mask is not None and min(lengths) < 0:
            masked = f"key_mask of dtype {kind}, padded on the left, real lengths {[-n for n in lengths]}"
        name = (f"random case {random + 1}: B={B}, nh={nh}, T_q={Tq}, T_k={Tk}, hs={hs}, {dtype}, {masked}; "
                f"{source}")
        hints = dict(SHAPE_ERRORS)
        if mask is None:
            hints["must match the size of tensor b"] = NO_MASK_HINT
        if kind is torch.long:
            hints = {"boolean masks": "key_mask may hold 0/1 integers: key_mask.bool() turns it into True/False",
                     **hints}
        args = (q, k, v) + (() if key_mask is None else (key_mask,))
        out, probs = _pair(name, _call_pure(fn, name, hints, *args))
        _check_probs(name, probs, expected_probs, q, k, key_mask,
                     "key_mask may hold 0/1 integers: key_mask.bool() turns it into True/False"
                     if kind is torch.long else "")
        expect_close(name + ", out", out, expected_out, atol=1e-5)
        random += 1
    return random
